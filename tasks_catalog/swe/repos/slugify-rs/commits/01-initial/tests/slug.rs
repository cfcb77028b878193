use slugify::slugify;

#[test]
fn lowercases_words() {
    assert_eq!(slugify("Hello"), "hello");
}

#[test]
fn joins_words_with_dashes() {
    assert_eq!(slugify("release notes 2024"), "release-notes-2024");
}
