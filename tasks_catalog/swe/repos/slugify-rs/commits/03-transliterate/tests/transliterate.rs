use slugify::slugify;

#[test]
fn spells_umlauts_in_ascii() {
    assert_eq!(slugify("Grüße"), "gruesse");
}

#[test]
fn spells_accents_in_ascii() {
    assert_eq!(slugify("Café"), "cafe");
}
