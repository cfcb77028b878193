use slugify::slugify_max;

#[test]
fn short_titles_are_untouched() {
    assert_eq!(slugify_max("tiny", 10), "tiny");
}

#[test]
fn cuts_at_a_word_boundary() {
    assert_eq!(slugify_max("the quick brown fox", 12), "the-quick");
}

#[test]
fn cuts_inside_a_single_long_word() {
    assert_eq!(slugify_max("abcdefghijkl", 5), "abcde");
}
