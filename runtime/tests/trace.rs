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
            adjusted: vec![],
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
        // A literal side is shown once: `12`, not `12 12`; a quoted text literal likewise.
        Event::Compare {
            left: s("to_hit"),
            left_value: Value::Int(9),
            op: s("<="),
            right: s("12"),
            right_value: Value::Int(12),
            result: true,
            cite: s("Starleader 6.3"),
        },
        Event::Compare {
            left: s("\"Syter X\""),
            left_value: Value::Text(s("Syter X")),
            op: s("=="),
            right: s("gadget"),
            right_value: Value::Text(s("Syter X")),
            result: true,
            cite: String::new(),
        },
        // Per-die modifier and floor: the faces as thrown, then as counted.
        Event::Roll {
            label: s("wounds"),
            dice: s("3d6 each -2 floor 0"),
            faces: vec![1, 5, 6],
            adjusted: vec![0, 3, 4],
            value: 7,
            cite: String::new(),
        },
        Event::Let {
            name: s("tries"),
            value: Value::Int(0),
            cite: s("Starleader 6.64"),
        },
        Event::Assign {
            name: s("tries"),
            value: Value::Int(1),
            cite: s("Starleader 6.64"),
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
