//! URL slugs: lowercase ASCII letters and digits, words joined by `-`.

/// The slug of `title`: ASCII letters and digits lowercased, everything else becomes `-`.
pub fn slugify(title: &str) -> String {
    title
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
        .collect()
}

/// Like [`slugify`], cut to at most `max_len` bytes without splitting a word when possible.
pub fn slugify_max(title: &str, max_len: usize) -> String {
    let slug = slugify(title);
    if slug.len() <= max_len {
        return slug;
    }
    let cut = &slug[..max_len];
    match cut.rfind('-') {
        Some(index) if index > 0 => cut[..index].to_string(),
        _ => cut.to_string(),
    }
}
