//! A small hand-built rule system ("skirmish") standing in for generated code in CLI tests:
//! statics shaped exactly like the compiler's output, with hand-written resolvers.

use rt::{Dice, DiceSpec, Error, Event, Inputs, Trace, Value};
use rulebook_runtime as rt;

static TABLES: [rt::TableInfo; 2] = [
    rt::TableInfo {
        id: 0,
        name: "weapons",
        title: "Weapons",
        cite: "Skirmish 4.1",
        kind: "keyed",
        columns: &[("damage_bonus", "int")],
        keys: &["Vacpak", "Ghazi 10/7"],
        aliases: &[("vp", 0)],
        rows: 2,
    },
    rt::TableInfo {
        id: 1,
        name: "hits",
        title: "Hit Effects",
        cite: "Skirmish 4.2",
        kind: "range",
        columns: &[("effect", "text")],
        keys: &[],
        aliases: &[],
        rows: 1,
    },
];
static STANCE: rt::EnumInfo = rt::EnumInfo {
    name: "Stance",
    variants: &["careful", "reckless"],
};
static T_TARGET: rt::Ty = rt::Ty::Int { min: 2, max: 12 };
static T_MOD: rt::Ty = rt::Ty::Int { min: -6, max: 6 };
static T_WEAPON: rt::Ty = rt::Ty::Key(&[&TABLES[0]]);
static T_BOOL: rt::Ty = rt::Ty::Bool;
static T_STANCE: rt::Ty = rt::Ty::Enum(&STANCE);
static T_RESULT: rt::Ty = rt::Ty::Enum(&RESULT);
static T_DAMAGE: rt::Ty = rt::Ty::Int { min: 0, max: 7 };
static T_BURST: rt::Ty = rt::Ty::Int { min: 2, max: 12 };
static RESULT: rt::EnumInfo = rt::EnumInfo {
    name: "Result",
    variants: &["hit", "miss"],
};

static ATTACK_INPUTS: [rt::InputInfo; 5] = [
    rt::InputInfo {
        name: "target",
        ty: &T_TARGET,
        default: None,
        doc: "2d6 + modifier must reach this",
        optional_rule: false,
        cite: "Skirmish 2.1",
    },
    rt::InputInfo {
        name: "modifier",
        ty: &T_MOD,
        default: Some("0"),
        doc: "",
        optional_rule: false,
        cite: "",
    },
    rt::InputInfo {
        name: "weapon",
        ty: &T_WEAPON,
        default: Some("vacpak"),
        doc: "",
        optional_rule: false,
        cite: "",
    },
    rt::InputInfo {
        name: "stance",
        ty: &T_STANCE,
        default: Some("careful"),
        doc: "",
        optional_rule: false,
        cite: "",
    },
    rt::InputInfo {
        name: "heroic_fire",
        ty: &T_BOOL,
        default: Some("off"),
        doc: "+1 to hit",
        optional_rule: true,
        cite: "Skirmish 9.1",
    },
];
static ATTACK_OUTPUTS: [rt::FieldInfo; 2] = [
    rt::FieldInfo {
        name: "result",
        ty: &T_RESULT,
        doc: "",
    },
    rt::FieldInfo {
        name: "damage",
        ty: &T_DAMAGE,
        doc: "wounds inflicted",
    },
];

/// 2d6 + modifier (+1 heroic) >= target hits; a hit rolls 1d6 damage, +1 with the Ghazi.
/// Reckless stance with a positive modifier is rejected by the rules.
fn attack<T: Trace>(d: &mut dyn Dice, t: &mut T, inputs: &Inputs) -> Result<Value, Error> {
    let target = rt::get_int(inputs, "target")?;
    let mut modifier = rt::get_int(inputs, "modifier")?;
    let weapon = rt::get_key(inputs, "weapon")?;
    let reckless = inputs.get("stance") == Some(&Value::Enum(1, "reckless"));
    if reckless && modifier > 0 {
        return Err(Error::Rejected {
            violations: vec![rt::Violation {
                cite: "Skirmish 3.2".into(),
                message: "a reckless attack gets no positive modifiers".into(),
                at: "skirmish.rules:12:3".into(),
            }],
        });
    }
    if T::ENABLED {
        t.event(Event::Enter {
            resolver: "attack".into(),
            title: "Attack".into(),
            cite: "Skirmish 2.0".into(),
        });
    }
    let spec = DiceSpec::new(2, 6);
    let roll = d.roll(&spec)?;
    if T::ENABLED {
        t.event(Event::Roll {
            label: "to-hit".into(),
            dice: spec.notation(),
            faces: d.last_faces().to_vec(),
            adjusted: Vec::new(),
            value: roll,
            cite: "Skirmish 2.1".into(),
        });
    }
    if rt::get_bool(inputs, "heroic_fire")? {
        modifier += 1;
        if T::ENABLED {
            t.event(Event::Modifier {
                name: "heroic fire".into(),
                value: Value::Int(1),
                cite: "Skirmish 9.1".into(),
            });
        }
    }
    let hit = roll + modifier >= target;
    if T::ENABLED {
        t.event(Event::Compare {
            left: "roll".into(),
            left_value: Value::Int(roll + modifier),
            op: ">=".into(),
            right: "target".into(),
            right_value: Value::Int(target),
            result: hit,
            cite: "Skirmish 2.1".into(),
        });
    }
    let damage = if hit {
        let spec = DiceSpec::new(1, 6);
        let dmg = d.roll(&spec)?;
        if T::ENABLED {
            t.event(Event::Roll {
                label: "damage".into(),
                dice: spec.notation(),
                faces: d.last_faces().to_vec(),
                adjusted: Vec::new(),
                value: dmg,
                cite: "Skirmish 2.3".into(),
            });
        }
        let bonus = i64::from(weapon.row == 1);
        if T::ENABLED && bonus != 0 {
            t.event(Event::Row {
                table: "weapons".into(),
                key: weapon.name.into(),
                row: "damage_bonus 1".into(),
                cite: "Skirmish 4.1".into(),
            });
            t.event(Event::Modifier {
                name: "weapon bonus".into(),
                value: Value::Int(bonus),
                cite: "Skirmish 4.1".into(),
            });
        }
        dmg + bonus
    } else {
        0
    };
    let result = if hit { Value::Enum(0, "hit") } else { Value::Enum(1, "miss") };
    if T::ENABLED {
        t.event(Event::Set {
            field: "result".into(),
            value: result.clone(),
            cite: String::new(),
        });
        t.event(Event::Exit { resolver: "attack".into() });
    }
    Ok(Value::Record(vec![("result", result), ("damage", Value::Int(damage))]))
}

/// 3d6 keep highest 2, returned bare (not a record).
fn burst<T: Trace>(d: &mut dyn Dice, t: &mut T, _inputs: &Inputs) -> Result<Value, Error> {
    let spec = DiceSpec {
        read: rt::Read::KeepHighest(2),
        ..DiceSpec::new(3, 6)
    };
    let v = d.roll(&spec)?;
    if T::ENABLED {
        t.event(Event::Roll {
            label: "burst".into(),
            dice: spec.notation(),
            faces: d.last_faces().to_vec(),
            adjusted: Vec::new(),
            value: v,
            cite: String::new(),
        });
    }
    Ok(Value::Int(v))
}

static BURST_OUTPUTS: [rt::FieldInfo; 1] = [rt::FieldInfo {
    name: "value",
    ty: &T_BURST,
    doc: "",
}];

static T_WOUND: rt::Ty = rt::Ty::Int { min: 1, max: 3 };
static T_WOUNDS: rt::Ty = rt::Ty::List(&T_WOUND);
static T_SHOTS: rt::Ty = rt::Ty::Int { min: 2, max: 2 };
static VOLLEY_OUTPUTS: [rt::FieldInfo; 4] = [
    rt::FieldInfo {
        name: "result",
        ty: &T_RESULT,
        doc: "",
    },
    rt::FieldInfo {
        name: "wounds",
        ty: &T_WOUNDS,
        doc: "the wounds of each shot, in the order fired",
    },
    rt::FieldInfo {
        name: "shots",
        ty: &T_SHOTS,
        doc: "always 2",
    },
    rt::FieldInfo {
        name: "cover",
        ty: &T_BOOL,
        doc: "never",
    },
];

/// Two shots of 1d3 wounds each, listed in the order fired: a list outcome whose order varies,
/// and two fields (`shots`, `cover`) that never do. A hit is 4 or more wounds in all.
fn volley<T: Trace>(d: &mut dyn Dice, t: &mut T, _inputs: &Inputs) -> Result<Value, Error> {
    let spec = DiceSpec::new(1, 3);
    let mut wounds = Vec::new();
    for label in ["first shot", "second shot", "third shot"] {
        let w = d.roll(&spec)?;
        if T::ENABLED {
            t.event(Event::Roll {
                label: label.into(),
                dice: spec.notation(),
                faces: d.last_faces().to_vec(),
                adjusted: Vec::new(),
                value: w,
                cite: String::new(),
            });
        }
        wounds.push(w);
    }
    let hit = wounds.iter().sum::<i64>() >= 6;
    let result = if hit { Value::Enum(0, "hit") } else { Value::Enum(1, "miss") };
    Ok(Value::Record(vec![
        ("result", result),
        ("wounds", Value::List(wounds.into_iter().map(Value::Int).collect())),
        ("shots", Value::Int(3)),
        ("cover", Value::Bool(false)),
    ]))
}

static RESOLVERS: [rt::ResolverInfo; 3] = [
    rt::ResolverInfo {
        name: "attack",
        title: "2.0 Attack",
        cite: "Skirmish 2.0",
        doc: "One attack roll and its damage.",
        inputs: &ATTACK_INPUTS,
        outputs: &ATTACK_OUTPUTS,
        choices: &[],
        exec: rt::Exec::Compiled {
            run_traced: attack::<rt::Recorder>,
            run_quiet: attack::<rt::NoTrace>,
            odds: None,
            chain: None,
            sim: None,
        },
    },
    rt::ResolverInfo {
        name: "burst",
        title: "",
        cite: "",
        doc: "",
        inputs: &[],
        outputs: &BURST_OUTPUTS,
        choices: &[],
        exec: rt::Exec::Compiled {
            run_traced: burst::<rt::Recorder>,
            run_quiet: burst::<rt::NoTrace>,
            odds: None,
            chain: None,
            sim: None,
        },
    },
    rt::ResolverInfo {
        name: "volley",
        title: "Volley",
        cite: "Skirmish 5.0",
        doc: "Two shots, their wounds listed in order.",
        inputs: &[],
        outputs: &VOLLEY_OUTPUTS,
        choices: &[],
        exec: rt::Exec::Compiled {
            run_traced: volley::<rt::Recorder>,
            run_quiet: volley::<rt::NoTrace>,
            odds: None,
            chain: None,
            sim: None,
        },
    },
];

static SKIRMISH: rt::SystemInfo = rt::SystemInfo {
    name: "skirmish",
    title: "Skirmish Test Rules",
    cite_prefix: "Skirmish",
    resolvers: &RESOLVERS,
    tables: &TABLES,
    enums: &[&STANCE, &RESULT],
    options: &[rt::OptionInfo {
        name: "heroic_fire",
        title: "Heroic Fire",
        cite: "Skirmish 9.1",
    }],
};

pub static SYSTEMS: [&rt::SystemInfo; 1] = [&SKIRMISH];
