use super::*;

#[test]
fn formats_bytes_below_one_kib() {
    assert_eq!(format_size(0), "0 B");
    assert_eq!(format_size(1023), "1023 B");
}

#[test]
fn formats_kib_with_one_decimal() {
    assert_eq!(format_size(1024), "1.0 KiB");
    assert_eq!(format_size(1536), "1.5 KiB");
}

#[test]
fn formats_larger_units() {
    assert_eq!(format_size(5 * 1024 * 1024), "5.0 MiB");
    assert_eq!(format_size(3 * 1024 * 1024 * 1024 + 512 * 1024 * 1024), "3.5 GiB");
}

#[test]
fn parses_plain_numbers_and_units() {
    assert_eq!(parse_size("42"), Ok(42));
    assert_eq!(parse_size("42 B"), Ok(42));
    assert_eq!(parse_size("1.5 KiB"), Ok(1536));
    assert_eq!(parse_size("10MiB"), Ok(10 * 1024 * 1024));
}

#[test]
fn rejects_unknown_units() {
    assert_eq!(parse_size("3 parsecs"), Err(ParseSizeError::UnknownUnit("parsecs".into())));
    assert_eq!(parse_size("  "), Err(ParseSizeError::Empty));
}
