use slugify::slugify;

#[test]
fn lowercases_words() {
    assert_eq!(slugify("Hello"), "hello");
}

#[test]
fn joins_words_with_dashes() {
    assert_eq!(slugify("release notes 2024"), "release-notes-2024");
}

#[test]
fn collapses_runs_of_separators() {
    assert_eq!(slugify("Hello, World!"), "hello-world");
    assert_eq!(slugify("a  --  b"), "a-b");
}

#[test]
fn trims_leading_and_trailing_separators() {
    assert_eq!(slugify("  (draft) Release notes... "), "draft-release-notes");
}

#[test]
fn empty_when_nothing_is_left() {
    assert_eq!(slugify("?!"), "");
}
