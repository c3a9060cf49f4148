//! The HTML reader's tests: what is kept, character references, unclosed
//! constructs, the budgets, hostile shapes.

use super::charrefs::unescape;
use super::*;

fn read(markup: &str) -> (String, Vec<String>) {
    html_to_text(markup, &mut Budget::default())
}

#[test]
fn inline_tags_and_comments_join_words_and_blocks_part_them() {
    assert_eq!(read("fr<!-- x -->ee f<b></b>ree").0, "free free");
    assert_eq!(read("one<p>two</p>three<br>four").0, "one two three four");
    assert_eq!(read("<script>var a = '<b>x</b>';</script>shown").0, "shown");
    assert_eq!(read("<style>p {}</STYLE >shown").0, "shown");
    assert_eq!(read("<title>hidden</title><head>kept").0, "kept");
}

#[test]
fn links_and_alt_text() {
    let (text, urls) =
        read("<a href=' http://a.example/ '>x</a><img src=\"i.png\" alt=\"FREE &amp; easy\">");
    assert_eq!(text, "x  FREE & easy ");
    assert_eq!(urls, vec!["http://a.example/", "i.png"]);
}

#[test]
fn character_references() {
    assert_eq!(
        unescape("&amp; &ampx &#65;&#x42 &#128; &#0; &#xD800; &#1; &bogus; &").unwrap(),
        "& &x AB \u{20ac} \u{fffd} \u{fffd}  &bogus; &"
    );
    assert_eq!(
        unescape("&notit; &notin; &#99999999999999999999;").unwrap(),
        "\u{ac}it; \u{2209} \u{fffd}"
    );
    assert!(unescape(&format!("&#{};", "1".repeat(4301))).is_err());
    assert!(unescape(&format!("&#{};", "1".repeat(4300))).is_ok());
}

#[test]
fn a_decimal_reference_too_long_for_python_stops_reading() {
    let markup = format!("kept<b>x</b>&#{};lost", "9".repeat(5000));
    assert_eq!(read(&markup).0, "keptx");
}

#[test]
fn unclosed_constructs_are_read_as_text() {
    assert_eq!(read("a <b c='d").0, "a <b c='d");
    assert_eq!(read("a <!-- never closed").0, "a <!-- never closed");
    assert_eq!(read("<<<").0, "<<<");
    assert_eq!(read("x <").0, "x <");
}

#[test]
fn an_unknown_marked_section_stops_reading() {
    assert_eq!(read("kept<![bogus[ x ]]>lost").0, "kept");
    assert_eq!(read("a<![CDATA[ x ]]>b").0, "ab");
}

#[test]
fn budgets_bound_tags_and_attributes() {
    let mut budget = Budget {
        tags: 5,
        ..Budget::default()
    };
    let (text, _) = html_to_text(&("<b>x</b> ".repeat(10) + "<i>free</i> money"), &mut budget);
    assert_eq!(budget.tags, 0);
    assert!(text.contains("free") && text.contains("money"));
    let many = format!(
        "<a{} href='http://far.example/'>far</a>",
        " b".repeat(100_000)
    );
    assert_eq!(read(&many), ("far".to_string(), vec![]));
    let mut budget = Budget {
        attributes: 200_000,
        ..Budget::default()
    };
    assert_eq!(
        html_to_text(&many, &mut budget),
        ("far".to_string(), vec!["http://far.example/".to_string()])
    );
}

#[test]
fn hostile_shapes_take_linear_time() {
    let shapes: Vec<Box<dyn Fn(usize) -> String>> = vec![
        Box::new(|n| "<x y".repeat(n)),
        Box::new(|n| "<a".repeat(n)),
        Box::new(|n| "</".repeat(n)),
        Box::new(|n| "<?".repeat(n)),
        Box::new(|n| "<![CDATA[".repeat(n)),
        Box::new(|n| "<!x".repeat(n)),
        Box::new(|n| "<!--".repeat(n)),
        Box::new(|n| "<<<".repeat(n)),
        Box::new(|n| "<a b='".repeat(n)),
        Box::new(|n| "<a b=\"".repeat(n)),
        Box::new(|n| "<a b='>".repeat(n)),
        Box::new(|n| format!("<a href=\"{}", "<".repeat(n))),
        Box::new(|n| format!("<script>{}", "</scrip ".repeat(n))),
        Box::new(|n| format!("<a{}>", " b".repeat(n))),
        Box::new(|n| "]] ] ] ]".repeat(n)),
        Box::new(|n| format!("<![if {}", "] ".repeat(n))),
        Box::new(|n| "-- - -- ".repeat(n)),
    ];
    // The CPU time of this thread, not the wall clock: other processes on a
    // loaded machine then cannot make a linear shape look quadratic.
    fn thread_seconds() -> f64 {
        let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: clock_gettime only writes the one timespec it is given.
        unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
        now.tv_sec as f64 + now.tv_nsec as f64 * 1e-9
    }
    let reduce = |markup: &str| {
        let started = thread_seconds();
        html_to_text(
            markup,
            &mut Budget {
                tags: 1_000_000_000,
                ..Budget::default()
            },
        );
        thread_seconds() - started
    };
    for make in &shapes {
        let (small, large) = (make(20_000), make(80_000));
        // Four times the input: linear is about 4 times the time, quadratic 16.
        let (mut cheap, mut dear) = (f64::MAX, f64::MAX);
        for _ in 0..3 {
            cheap = cheap.min(reduce(&small));
            dear = dear.min(reduce(&large));
        }
        assert!(
            dear <= 8.0 * cheap.max(1e-4),
            "{:?}: {cheap} s, {dear} s",
            &small[..small.len().min(20)]
        );
    }
}

#[test]
fn never_panics_on_fragments() {
    let pieces = [
        "<a", "<", "a", "B", " ", "\t", "\u{a0}", "=", "==", "'", "\"", "/", ">", "/>",
        "\u{0}", "é", "<b c", "'>'", "href", "=x ", "&", "#", "x", "1", ";", "<!", "--", "[",
        "]", "?", "script", "</", "\u{212a}", "\u{17f}", "\u{2028}",
    ];
    let mut state = 12345u64;
    for _ in 0..20_000 {
        let mut markup = String::new();
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        for _ in 0..(state >> 60) + 1 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            markup.push_str(pieces[(state >> 33) as usize % pieces.len()]);
        }
        read(&markup);
        html_to_text(
            &markup,
            &mut Budget {
                scan: 0,
                tags: 3,
                attributes: 1,
            },
        );
    }
}
