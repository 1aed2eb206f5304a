//! Trace rendering snapshots: the human text of a nested resolution and its JSON event form.
//! Snapshots live in /snapshots/runtime at the workspace root.

use rulebook_runtime::{Dec, Event, Key, Recorder, Value};

fn sample() -> Recorder {
    let s = |x: &str| x.to_string();
    let mut r = Recorder::new();
    r.events = vec![
        Event::Enter {
            resolver: s("fire"),
            title: s("6.0 Weapon Fire"),
            cite: s("Starleader 6.0"),
        },
        Event::Roll {
            label: s("to-hit"),
            dice: s("4d6"),
            faces: vec![6, 6, 6, 5],
            value: 23,
            cite: s("Starleader 6.3"),
        },
        Event::Modifier {
            name: s("counter-fire"),
            value: Value::Int(-3),
            cite: s("Starleader 5.4"),
        },
        Event::Modifier {
            name: s("close range, pistol"),
            value: Value::Int(3),
            cite: s("Starleader 6.31"),
        },
        Event::Modifier {
            name: s("cover"),
            value: Value::Dec(Dec::raw(-1, 2)),
            cite: String::new(),
        },
        Event::Compare {
            left: s("to_hit"),
            left_value: Value::Int(23),
            op: s("<="),
            right: s("target"),
            right_value: Value::Int(12),
            result: false,
            cite: s("Starleader 6.3"),
        },
        Event::Enter {
            resolver: s("damage"),
            title: s("6.6 Damage"),
            cite: s("Starleader 6.6"),
        },
        Event::Row {
            table: s("heavy_hit"),
            key: s("3"),
            row: s("down_lose_2_ap"),
            cite: s("Starleader 6.61"),
        },
        Event::Let {
            name: s("weapon"),
            value: Value::Key(Key {
                table: 1,
                row: 1,
                name: "Ghazi 10/7",
            }),
            cite: String::new(),
        },
        Event::Note {
            text: s("a very long note that runs past the citation column on purpose"),
            cite: s("Starleader 6.62"),
        },
        Event::Exit { resolver: s("damage") },
        Event::Set {
            field: s("result"),
            value: Value::Record(vec![("result", Value::Enum(0, "hit")), ("damage", Value::Int(3))]),
            cite: String::new(),
        },
        Event::Set {
            field: s("lost"),
            value: Value::List(vec![Value::Enum(0, "a"), Value::Text(s("b c"))]),
            cite: String::new(),
        },
        Event::Exit { resolver: s("fire") },
    ];
    r
}

#[test]
fn render_snapshot() {
    insta::with_settings!({snapshot_path => "../../snapshots/runtime", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("trace_render", sample().render());
    });
}

#[test]
fn json_snapshot() {
    insta::with_settings!({snapshot_path => "../../snapshots/runtime", prepend_module_to_snapshot => false}, {
        // Through serde_json itself (what the CLI prints), so decimals come out as exact numbers.
        let json = serde_json::to_string_pretty(&sample().events).unwrap();
        insta::assert_snapshot!("trace_events_json", json);
    });
}

#[test]
fn render_is_deterministic_and_exit_never_underflows() {
    assert_eq!(sample().render(), sample().render());
    let mut r = Recorder::new();
    r.events = vec![
        Event::Exit { resolver: "x".into() },
        Event::Note {
            text: "still at depth 0".into(),
            cite: String::new(),
        },
    ];
    assert_eq!(r.render(), "note: still at depth 0\n");
}
