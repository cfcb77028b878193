//! URL slugs: lowercase ASCII letters and digits, words joined by `-`.

/// Latin letters with diacritics and their ASCII spelling.
const TRANSLITERATIONS: &[(char, &str)] = &[
    ('ä', "ae"), ('ö', "oe"), ('ü', "ue"), ('ß', "ss"), ('é', "e"), ('è', "e"), ('ê', "e"),
    ('á', "a"), ('à', "a"), ('ç', "c"), ('ñ', "n"), ('ø', "o"), ('å', "a"),
];

fn transliterate(c: char) -> Option<&'static str> {
    let lower = c.to_lowercase().next().unwrap_or(c);
    TRANSLITERATIONS.iter().find(|(from, _)| *from == lower).map(|(_, to)| *to)
}

/// The slug of `title`: ASCII letters and digits lowercased, common accented letters spelled
/// in ASCII (`ü` -> `ue`); each run of anything else becomes a single `-`, and the slug
/// never starts or ends with one.
pub fn slugify(title: &str) -> String {
    let mut slug = String::with_capacity(title.len());
    for c in title.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if let Some(ascii) = transliterate(c) {
            slug.push_str(ascii);
        } else if !slug.is_empty() && !slug.ends_with('-') {
            // One dash per run of separators, none at the start.
            slug.push('-');
        }
    }
    while slug.ends_with('-') {
        slug.pop();
    }
    slug
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
