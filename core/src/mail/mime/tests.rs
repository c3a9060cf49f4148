//! The MIME reader's tests: hostile input, the bounds, binascii's corners.

use super::headers::media_type;
use super::scan::slice;
use super::uu::is_octal_int;
use super::*;

/// A small deterministic generator (xorshift), for random hostile input.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const PIECES: &[&[u8]] = &[
    b"\n", b"\r\n", b"\r", b" ", b"\t", b"From x\n", b"Subject: s\n", b"Subject :x\n", b": x\n", b" cont\n",
    b"junk\n", b"<p>\n", b"--b\n", b"--b--\n", b"--b x\n", b"--bb\n", b"Content-Type: multipart/mixed; boundary=b\n",
    b"Content-Type: message/rfc822\n", b"Content-Type: message/delivery-status\n",
    b"Content-Type: multipart/digest; boundary=\"b\"\n", b"Content-Type: text/plain; name*0*=x''%E5; name*1=\"a\"\n",
    b"Content-Transfer-Encoding: base64\n", b"Content-Transfer-Encoding: quoted-printable\n",
    b"Content-Transfer-Encoding: uue\n", b"aGk=", b"=\r", b"=4", b"begin 644 a\n", b"#:&D*\n", b"end\n",
    b"\xff", b"\x00", b"=?utf-8?B?5L2g?=", b";", b"\"", b"\\", b"(", b"<", b"@", b":", b",",
];

fn random_message(rng: &mut Rng) -> Vec<u8> {
    let n = rng.below(60);
    (0..n).flat_map(|_| PIECES[rng.below(PIECES.len())].iter().copied()).collect()
}

#[test]
fn nothing_panics_on_random_hostile_input() {
    let mut rng = Rng(0x9e3779b97f4a7c15);
    for _ in 0..20_000 {
        let data = random_message(&mut rng);
        let end = rng.below(data.len() + 1);
        let start = rng.below(end + 1);
        let (fields, body, _) = read_headers(&data, start, end);
        assert!(body <= end + 1);
        let (_, entities) = parse(&data, 1 + rng.below(8), rng.below(4));
        for entity in entities {
            if let Entity::Part { fields, body, .. } = entity {
                let _ = (charset(&fields), filename(&fields), transfer_decode(&body, &fields));
            }
        }
        for (_, value) in &fields {
            let _ = (params(Some(value)), params_cut(Some(value)), media_type(value));
        }
        for encoding in ["base64", "quoted-printable", "x-uuencode"] {
            let _ = transfer_decode(&data, &[("content-transfer-encoding".into(), encoding.as_bytes().to_vec())]);
        }
    }
}

#[test]
fn header_block_bound_cuts_with_a_last_empty_field() {
    let mut raw = b"X-A: b\n".repeat(MAX_FIELDS + 5);
    raw.extend_from_slice(b"\nbody\n");
    let (fields, body, _) = read_headers(&raw, 0, raw.len());
    assert_eq!(fields.len(), MAX_FIELDS + 1);
    assert_eq!(fields.last().map(|f| f.0.as_str()), Some(CUT_FIELD));
    assert_eq!(&raw[body..], b"body\n");
}

#[test]
fn a_blank_line_read_past_the_end_leaves_an_empty_body() {
    // The Python reads the CRLF of the blank line after the cut unbounded.
    let mut raw = b"X-A: b\n".repeat(MAX_FIELDS + 1);
    raw.extend_from_slice(b"\r\nbody");
    let end = raw.len() - 5; // between the CR and the LF
    let (_, body, _) = read_headers(&raw, 0, end);
    assert_eq!(body, end + 1);
    assert_eq!(slice(&raw, body, end), b"");
}

#[test]
fn parameters_past_the_bound_are_not_read_and_said_so() {
    let mut value = b"text/plain".to_vec();
    value.extend(b"; a=b".repeat(MAX_PARAMS + 1));
    assert_eq!(params(Some(&value)).len(), MAX_PARAMS);
    assert!(params_cut(Some(&value)));
    let mut empty = b"text/plain".to_vec();
    empty.extend(b" ;".repeat(7000));
    assert!(!params_cut(Some(&empty)));
    // A section number of over 4 digits is no section.
    let long = format!("text/plain; x*{}*=a", "9".repeat(5000));
    assert_eq!(params(Some(long.as_bytes())).len(), 2);
}

#[test]
fn parts_and_depth_are_bounded() {
    let mut many = b"Content-Type: multipart/mixed; boundary=B\n\n".to_vec();
    for i in 0..2000 {
        many.extend(format!("--B\n\npart {i}\n").bytes());
    }
    assert_eq!(parse(&many, 500, 50).1.len(), 499); // the container is one of the 500
    let mut deep = b"Content-Type: multipart/mixed; boundary=b0\n\n".to_vec();
    for i in 0..100 {
        deep.extend(format!("--b{i}\nContent-Type: multipart/mixed; boundary=b{}\n\n", i + 1).bytes());
    }
    deep.extend(b"--b100\n\nleaf\n");
    assert!(parse(&deep, 500, 50).1.is_empty());
    assert_eq!(parse(&deep, 500, 200).1.len(), 1);
}

#[test]
fn binascii_corners() {
    assert_eq!(a2b_base64(b"aGk=", true), Ok(b"hi".to_vec()));
    assert_eq!(a2b_base64(b"aGk=x", true), Err(()));
    assert_eq!(a2b_base64(b"=aGk", true), Err(()));
    assert_eq!(a2b_base64(b"a!Gk=", false), Ok(b"hi".to_vec()));
    assert_eq!(a2b_base64(b"aGk", false), Err(()));
    assert_eq!(a2b_base64(b"a", false), Err(()));
    assert_eq!(a2b_qp(b"a=\rskipped\nb=41=4=", false), b"abA=4".to_vec());
    assert_eq!(a2b_qp(b"a_b", true), b"a b".to_vec());
    assert_eq!(transfer_decode(b"begin 644 a.txt\n#:&D*\n`\nend\n",
                               &[("content-transfer-encoding".into(), b"x-uuencode".to_vec())]), b"hi\n".to_vec());
    assert!(is_octal_int(b"0o_7") && is_octal_int(b"+6_4") && !is_octal_int(b"8") && !is_octal_int(b"6__4"));
}

#[test]
fn hostile_shapes_are_linear_enough() {
    // Each would be quadratic with a rescan per line or per boundary.
    let mut run = b"Content-Type: multipart/mixed; boundary=b\n\n".to_vec();
    run.extend(b"--b\n".repeat(500_000));
    run.extend(b"\nbody\n--b--\n");
    let mut lines = b"Content-Type: multipart/mixed; boundary=a\n\n".to_vec();
    lines.extend(b"x--a\n".repeat(500_000));
    let mut junk = b"Subject: a\n".to_vec();
    junk.extend(b"junk line\n".repeat(300_000));
    let started = std::time::Instant::now();
    for raw in [&run, &lines, &junk] {
        let _ = parse(raw, 500, 50);
    }
    assert!(started.elapsed().as_secs_f64() < 5.0);
}
