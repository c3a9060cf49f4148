//! Python's HZ decoder (RFC 1843, GB2312 in 7 bits).

use super::dbcs::gb2312;
use super::replacement::bad;

/// HZ (RFC 1843): "~{" switches to GB2312 in 7 bits, "~}" back; "~~" is a
/// tilde and "~" before a line break joins the lines.
pub(super) fn hz(data: &[u8], replace: bool, cut: bool) -> Option<String> {
    let mut out = String::with_capacity(data.len());
    let mut gb = false;
    let mut i = 0;
    while i < data.len() {
        let b = data[i];
        if b == b'~' {
            let Some(&next) = data.get(i + 1) else {
                if cut {
                    break;
                }
                bad(&mut out, replace)?;
                break;
            };
            match next {
                b'~' if !gb => out.push('~'),
                b'{' if !gb => gb = true,
                b'}' if gb => gb = false,
                b'\n' if !gb => {}
                _ => {
                    bad(&mut out, replace)?;
                    i += 1;
                    continue;
                }
            }
            i += 2;
        } else if b >= 0x80 {
            bad(&mut out, replace)?;
            i += 1;
        } else if gb {
            let Some(&trail) = data.get(i + 1) else {
                if cut {
                    break;
                }
                bad(&mut out, replace)?;
                break;
            };
            match gb2312(b, trail) {
                Some(c) => {
                    out.push(c);
                    i += 2;
                }
                None => {
                    bad(&mut out, replace)?;
                    i += 1;
                }
            }
        } else {
            out.push(b as char);
            i += 1;
        }
    }
    Some(out)
}
