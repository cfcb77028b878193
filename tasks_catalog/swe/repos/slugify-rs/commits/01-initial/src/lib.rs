//! URL slugs: lowercase ASCII letters and digits, words joined by `-`.

/// The slug of `title`: ASCII letters and digits lowercased, everything else becomes `-`.
pub fn slugify(title: &str) -> String {
    title
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
        .collect()
}
