//! Human-readable byte sizes with binary (1024-based) units.

const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];

/// Formats `bytes` as `"512 B"` below one KiB, else with one decimal: `"1.5 KiB"`.
pub fn format_size(bytes: u64) -> String {
    if bytes < 1024 {
        return format!("{} B", bytes);
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{:.1} {}", value, UNITS[unit])
}

/// Why a size string could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseSizeError {
    Empty,
    BadNumber(String),
    UnknownUnit(String),
}

/// Reads `"42"`, `"42 B"`, `"1.5 KiB"` or `"10mib"` into a number of bytes (rounded down).
/// Units are case-insensitive.
pub fn parse_size(text: &str) -> Result<u64, ParseSizeError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(ParseSizeError::Empty);
    }
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = (&text[..split], text[split..].trim());
    let value: f64 = number
        .parse()
        .map_err(|_| ParseSizeError::BadNumber(number.to_string()))?;
    Ok((value * multiplier(unit)? as f64) as u64)
}

fn multiplier(unit: &str) -> Result<u64, ParseSizeError> {
    if unit.is_empty() || unit.eq_ignore_ascii_case("b") {
        return Ok(1);
    }
    match UNITS.iter().position(|u| u.eq_ignore_ascii_case(unit)) {
        Some(index) => Ok(1024u64.pow(index as u32 + 1)),
        None => Err(ParseSizeError::UnknownUnit(unit.to_string())),
    }
}

#[cfg(test)]
mod tests;
