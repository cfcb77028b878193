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

#[cfg(test)]
mod tests;
