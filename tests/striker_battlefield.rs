//! Striker Book 2, rules 46-56 (the battlefield part): exact odds against the reference's oracles
//! (T-ECM, the 2D table of §0.1, T-MINES), every row of the printed and derived tables in scope (T3
//! against its formula, T4, T5, T-NIGHTMAX, T-WEATHER, T-SLOPE, T-ATMPROT, T-SURPRISE, T-EARTH,
//! T-OBSTACLE, T-CHARGES), the readings switched by options, and the refusals. Each test cites its
//! rule; the readings are in docs/ambiguities.md (Striker) (STR-battlefield).

mod common;

use common::{attempt, dist, field, p, refusals, resolve};

/// One output of a resolver without dice.
fn out(path: &str, sets: &[(&str, &str)], name: &str) -> String {
    field(
        &resolve(path, sets, "", &[]).unwrap_or_else(|e| panic!("{path} {sets:?}: {e}")),
        name,
    )
}

/// P(2D >= n) as the reference's §0.1 table gives it, reduced.
fn two_d_at_least(n: i64) -> String {
    let ways = (1..=6).flat_map(|a| (1..=6).map(move |b| a + b)).filter(|s| *s >= n).count() as i64;
    match ways {
        0 => "0".into(),
        36 => "1".into(),
        _ => {
            let g = gcd(ways, 36);
            format!("{}/{}", ways / g, 36 / g)
        }
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

// ------------------------------------------------------------------ 46 electronic detection

/// T-ECM: basic ECM 7+, extensive 10+, DM -1 per TL the ECM exceeds the radar, +4 per TL the radar
/// exceeds the ECM (46.A); every cell of the reference's oracle.
#[test]
fn t_ecm_radar_detection_oracle() {
    let cases = [
        // (radar TL - ECM TL, basic, extensive)
        (-3, "1/6", "0"),
        (-2, "5/18", "1/36"),
        (-1, "5/12", "1/12"),
        (0, "7/12", "1/6"),
        (1, "35/36", "13/18"),
        (2, "1", "1"),
    ];
    for (diff, basic, extensive) in cases {
        let radar = (10 + diff).to_string();
        for (ecm, want) in [("basic", basic), ("extensive", extensive)] {
            let d = dist("striker.radar_detection", &[("sensor_tl", &radar), ("ecm_tl", "10"), ("ecm", ecm)]);
            assert_eq!(p(&d, "detected", "true"), want, "{ecm} ECM, radar TL {diff:+} over the ECM");
        }
    }
}

/// 46.A, 46.B, 50: no ECM is automatic; a stationary vehicle is not spotted; jamming stops radar, not
/// ladar; chaff blinds a sensor of its own tech level or lower, for six complete turns.
#[test]
fn radar_automatic_cases_jamming_and_chaff() {
    let det = |sets: &[(&str, &str)]| p(&dist("striker.radar_detection", sets), "detected", "true");
    assert_eq!(det(&[("sensor_tl", "9")]), "1");
    assert_eq!(det(&[("sensor_tl", "9"), ("moving", "false")]), "0");
    assert_eq!(det(&[("sensor_tl", "9"), ("jammed", "true")]), "0");
    assert_eq!(det(&[("sensor_tl", "9"), ("jammed", "true"), ("sensor", "ladar")]), "1");
    assert_eq!(det(&[("sensor_tl", "9"), ("through_chaff", "true"), ("chaff_tl", "9")]), "0");
    assert_eq!(det(&[("sensor_tl", "10"), ("through_chaff", "true"), ("chaff_tl", "9")]), "1");
    assert_eq!(
        det(&[
            ("sensor_tl", "9"),
            ("through_chaff", "true"),
            ("chaff_tl", "9"),
            ("chaff_turns", "5")
        ]),
        "0"
    );
    assert_eq!(
        det(&[
            ("sensor_tl", "9"),
            ("through_chaff", "true"),
            ("chaff_tl", "9"),
            ("chaff_turns", "6")
        ]),
        "1"
    );
}

/// 46.A, 48.A.3: range in km = power (100 cm a km), halved in rain and heavy snowfall unless
/// all-weather; ladar is not halved.
#[test]
fn radar_range_and_weather() {
    let r = |sets: &[(&str, &str)]| out("striker.radar_range", sets, "range_cm");
    assert_eq!(r(&[("power", "3")]), "300");
    assert_eq!(r(&[("power", "3"), ("weather", "rain")]), "150");
    assert_eq!(r(&[("power", "3"), ("weather", "heavy_snowfall")]), "150");
    assert_eq!(r(&[("power", "3"), ("weather", "light_snowfall")]), "300");
    assert_eq!(r(&[("power", "3"), ("weather", "rain"), ("all_weather", "true")]), "300");
    assert_eq!(r(&[("power", "3"), ("weather", "rain"), ("sensor", "ladar")]), "300");
}

/// 46.C, 46.F, 47.A.4, 48.A: thermal imaging 300 / 600 cm, 150 / 300 in rain, nothing in snowfall;
/// the four exceptions; passive IR at half its listed range by day, all of it at night (A8), and not in
/// drizzle, rain or snowfall.
#[test]
fn thermal_imaging_and_passive_ir() {
    let seen = |sets: &[(&str, &str)]| out("striker.thermal_spotting", sets, "spotted");
    let base = [("device_tl", "12")];
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut v: Vec<(&str, &str)> = base.to_vec();
        v.extend_from_slice(extra);
        seen(&v)
    };
    assert_eq!(with(&[("target", "personnel"), ("distance_cm", "300")]), "true");
    assert_eq!(with(&[("target", "personnel"), ("distance_cm", "301")]), "false");
    assert_eq!(with(&[("target", "vehicle"), ("distance_cm", "600")]), "true");
    assert_eq!(with(&[("target", "vehicle"), ("distance_cm", "300"), ("weather", "rain")]), "true");
    assert_eq!(with(&[("target", "vehicle"), ("distance_cm", "301"), ("weather", "rain")]), "false");
    assert_eq!(
        with(&[("target", "personnel"), ("distance_cm", "150"), ("weather", "rain")]),
        "true"
    );
    assert_eq!(
        with(&[("target", "personnel"), ("distance_cm", "151"), ("weather", "rain")]),
        "false"
    );
    assert_eq!(
        with(&[("target", "personnel"), ("distance_cm", "10"), ("weather", "light_snowfall")]),
        "false"
    );
    assert_eq!(
        with(&[("target", "personnel"), ("distance_cm", "10"), ("weather", "drizzle")]),
        "true"
    );
    // The exceptions (46.C.1-4).
    assert_eq!(
        with(&[("target", "vehicle"), ("distance_cm", "10"), ("ecm", "extensive"), ("ecm_tl", "5")]),
        "false"
    );
    assert_eq!(
        with(&[("target", "vehicle"), ("distance_cm", "10"), ("ecm", "basic"), ("ecm_tl", "13")]),
        "false"
    );
    assert_eq!(
        with(&[("target", "vehicle"), ("distance_cm", "10"), ("ecm", "basic"), ("ecm_tl", "12")]),
        "true"
    );
    assert_eq!(
        with(&[
            ("target", "personnel"),
            ("distance_cm", "10"),
            ("sealed_suit", "true"),
            ("suit_tl", "13")
        ]),
        "false"
    );
    assert_eq!(
        with(&[
            ("target", "personnel"),
            ("distance_cm", "10"),
            ("sealed_suit", "true"),
            ("suit_tl", "12")
        ]),
        "true"
    );
    assert_eq!(
        with(&[
            ("target", "personnel"),
            ("distance_cm", "10"),
            ("sealed_suit", "true"),
            ("suit_tl", "8"),
            ("chameleon", "true")
        ]),
        "false"
    );
    // Passive IR: half its listed range by day, the whole at night, or half with the option.
    let ir = |extra: &[(&'static str, &'static str)]| {
        let mut v: Vec<(&str, &str)> = vec![
            ("device", "passive_ir"),
            ("device_tl", "10"),
            ("listed_range_cm", "200"),
            ("target", "vehicle"),
        ];
        v.extend_from_slice(extra);
        out("striker.thermal_spotting", &v, "range_cm")
    };
    assert_eq!(ir(&[("distance_cm", "10")]), "100");
    assert_eq!(ir(&[("distance_cm", "10"), ("night", "true")]), "200");
    assert_eq!(
        ir(&[
            ("distance_cm", "10"),
            ("night", "true"),
            ("battlefield_passive_ir_half_at_night", "on")
        ]),
        "100"
    );
    assert_eq!(ir(&[("distance_cm", "10"), ("weather", "drizzle")]), "0");
    assert_eq!(ir(&[("distance_cm", "10"), ("weather", "dense_fog")]), "100");
}

// ------------------------------------------------------------------ 47, 48 night and weather

/// T-NIGHTMAX: 100, 200, 200 and 400 cm times v; light amplification doubles v (47.A.6, A9); image
/// enhancement doubles the spotting-table range only (46.D).
#[test]
fn t_nightmax_maxima() {
    let max = |target: &str, v: &str| {
        out(
            "striker.night_spotting",
            &[("table_range_cm", "50"), ("night_multiple", v), ("target", target)],
            "max_range_cm",
        )
    };
    assert_eq!(max("stationary_soldier", "0.4"), "40");
    assert_eq!(max("moving_soldier", "0.4"), "80");
    assert_eq!(max("stationary_vehicle", "0.4"), "80");
    assert_eq!(max("moving_vehicle", "0.4"), "160");
    assert_eq!(max("moving_vehicle", "0.1"), "40");
    // The spotting range never passes the maximum: a 500 cm row at v 0.4 is 200 cm, capped at 40.
    assert_eq!(
        out(
            "striker.night_spotting",
            &[("table_range_cm", "500"), ("night_multiple", "0.4")],
            "range_cm"
        ),
        "40"
    );
    let enh = &[("table_range_cm", "50"), ("night_multiple", "0.4"), ("aid", "image_enhancement")];
    assert_eq!(out("striker.night_spotting", enh, "range_cm"), "40");
    assert_eq!(out("striker.night_spotting", enh, "max_range_cm"), "40");
}

/// T-WEATHER: the multiples (0.5 light fog, drizzle, light snowfall; 0.25 dense fog, rain, heavy
/// snowfall), by day; with night they multiply (A11), or the lower one with the option; light
/// amplification does not work in any of them (48.A.4).
/// 48.B: "Wheeled vehicles pay double movement costs to move through snow; tracked vehicles pay 1.5
/// times normal movement costs" (A58: snow lying on the ground). A Book 1 cost of 5 cm becomes 10
/// and 7.5; without snow it stays.
#[test]
fn snow_doubles_wheeled_and_adds_half_to_tracked_movement_costs() {
    let cost = |gear: &str, base: &str, snow: &str| {
        out(
            "striker.ground_movement",
            &[("running_gear", gear), ("base_cost_cm", base), ("snow", snow)],
            "cost_cm",
        )
    };
    assert_eq!(cost("wheeled", "5", "true"), "10");
    assert_eq!(cost("tracked", "5", "true"), "7.5");
    assert_eq!(cost("tracked", "4", "true"), "6");
    assert_eq!(cost("wheeled", "2.5", "true"), "5");
    assert_eq!(cost("wheeled", "5", "false"), "5");
    assert_eq!(cost("tracked", "5", "false"), "5");
}

#[test]
fn t_weather_multiples_and_night() {
    let mult = |weather: &str, extra: &[(&'static str, &'static str)]| {
        let mut v: Vec<(&str, &str)> = vec![("table_range_cm", "100"), ("night", "false"), ("weather", weather)];
        v.extend_from_slice(extra);
        out("striker.night_spotting", &v, "multiple")
    };
    for (w, v) in [
        ("clear", "1"),
        ("light_fog", "0.5"),
        ("drizzle", "0.5"),
        ("light_snowfall", "0.5"),
        ("dense_fog", "0.25"),
        ("rain", "0.25"),
        ("heavy_snowfall", "0.25"),
    ] {
        assert_eq!(mult(w, &[]), v, "{w}");
    }
    assert_eq!(mult("rain", &[("aid", "light_amplification")]), "0.25");
    assert_eq!(mult("rain", &[("night", "true"), ("night_multiple", "0.4")]), "0.1");
    assert_eq!(
        mult(
            "rain",
            &[
                ("night", "true"),
                ("night_multiple", "0.4"),
                ("battlefield_weather_lower_multiple", "on")
            ]
        ),
        "0.25"
    );
    // Daylight in clear weather: the table's range, no maximum below it.
    let day = &[("table_range_cm", "100"), ("night", "false")];
    assert_eq!(out("striker.night_spotting", day, "range_cm"), "100");
    assert_eq!(out("striker.night_spotting", day, "max_range_cm"), "100");
    // Weather maxima as at night (48.A "in the same manner as night"): dense fog, moving vehicle 100 cm.
    assert_eq!(
        out(
            "striker.night_spotting",
            &[
                ("table_range_cm", "1000"),
                ("night", "false"),
                ("weather", "dense_fog"),
                ("target", "moving_vehicle")
            ],
            "max_range_cm"
        ),
        "100"
    );
}

/// 47.A.2-3, 48.A: searchlight radius 2 cm to 200 cm, seen within 500; IR scope 50 / 150, IR
/// searchlight 100 / 300; searchlights fail in reduced visibility, IR in drizzle, rain and snowfall.
#[test]
fn lights_at_night() {
    let l = |light: &str, d: &str, w: &str, name: &str| {
        out("striker.night_light", &[("light", light), ("distance_cm", d), ("weather", w)], name)
    };
    assert_eq!(l("searchlight", "200", "clear", "works"), "true");
    assert_eq!(l("searchlight", "201", "clear", "works"), "false");
    assert_eq!(l("searchlight", "10", "clear", "seen_within_cm"), "500");
    assert_eq!(l("searchlight", "10", "light_fog", "works"), "false");
    assert_eq!(l("ir_scope", "50", "clear", "works"), "true");
    assert_eq!(l("ir_scope", "51", "clear", "works"), "false");
    assert_eq!(l("ir_scope", "10", "clear", "seen_within_cm"), "150");
    assert_eq!(l("ir_searchlight", "100", "dense_fog", "works"), "true");
    assert_eq!(l("ir_searchlight", "100", "dense_fog", "seen_within_cm"), "300");
    assert_eq!(l("ir_searchlight", "10", "drizzle", "works"), "false");
    assert_eq!(out("striker.firing_revealed", &[], "spotted"), "true");
    assert_eq!(out("striker.firing_revealed", &[("silent_weapon", "true")], "spotted"), "false");
}

// ------------------------------------------------------------------ 49-52

/// 49: below TL9 two sets at least 20 cm apart; from TL9 one.
#[test]
fn direction_finding_sets() {
    let loc = |sets: &[(&str, &str)]| out("striker.direction_finding", sets, "located");
    assert_eq!(loc(&[("locator_tl", "8")]), "false");
    assert_eq!(loc(&[("locator_tl", "8"), ("sets", "2"), ("separation_cm", "19")]), "false");
    assert_eq!(loc(&[("locator_tl", "8"), ("sets", "2"), ("separation_cm", "20")]), "true");
    assert_eq!(loc(&[("locator_tl", "9")]), "true");
    assert_eq!(
        out(
            "striker.direction_finding",
            &[("locator_tl", "9"), ("friendly_line_of_sight", "true")],
            "spotted"
        ),
        "true"
    );
    assert_eq!(out("striker.direction_finding", &[("locator_tl", "9")], "spotted"), "false");
}

/// 51.A, 51.C: improvised flash ranging 10+ (2D), +2 per turn after the first from the same position,
/// accuracy DM -4 and +1 per further turn located; flash only at night, up to 1000 cm; sound ranging
/// does not locate mortars.
#[test]
fn sound_and_flash_ranging() {
    let base = [("method", "improvised_flash"), ("weapon", "mortar"), ("night", "true")];
    let d = dist("striker.ranging_locate", &base);
    assert_eq!(p(&d, "located", "true"), two_d_at_least(10));
    let mut more = base.to_vec();
    more.push(("turns_same_position", "3"));
    more.push(("turns_located", "2"));
    let d = dist("striker.ranging_locate", &more);
    assert_eq!(p(&d, "located", "true"), two_d_at_least(6));
    assert_eq!(p(&d, "accuracy_dm", "-3"), two_d_at_least(6));
    let d = dist("striker.ranging_locate", &[("method", "sound"), ("weapon", "mortar")]);
    assert_eq!(p(&d, "located", "true"), "0");
    let d = dist(
        "striker.ranging_locate",
        &[("method", "sound"), ("weapon", "cpr_gun"), ("locate_number", "8")],
    );
    assert_eq!(p(&d, "located", "true"), two_d_at_least(8));
    let r = refusals(attempt("striker.ranging_locate", &[("method", "flash"), ("weapon", "mortar")], ""));
    assert!(r.len() == 1 && r[0].contains("only at night") && r[0].contains("51.C"), "{r:?}");
    let r = refusals(attempt(
        "striker.ranging_locate",
        &[
            ("method", "improvised_flash"),
            ("weapon", "mortar"),
            ("night", "true"),
            ("distance_cm", "1001"),
        ],
        "",
    ));
    assert_eq!(r.len(), 1);
    // 51.D: best DM, +1 per type beyond the first (A13), or per type with the option.
    let c = |extra: &[(&'static str, &'static str)]| {
        let mut v: Vec<(&str, &str)> = vec![("best_accuracy_dm", "2"), ("by_radar", "true"), ("by_flash", "true")];
        v.extend_from_slice(extra);
        out("striker.ranging_combined", &v, "accuracy_dm")
    };
    assert_eq!(c(&[]), "3");
    assert_eq!(c(&[("battlefield_ranging_count_every_type", "on")]), "4");
}

/// 52: one round from every discharger, a line as long as the salvo, 2 cm away, burning 2 turns.
#[test]
fn vehicle_smoke_salvo() {
    let s = &[("dischargers", "4"), ("rounds_left", "3")];
    assert_eq!(out("striker.vehicle_smoke", s, "screen_length_cm"), "4");
    assert_eq!(out("striker.vehicle_smoke", s, "distance_cm"), "2");
    assert_eq!(out("striker.vehicle_smoke", s, "burn_turns"), "2");
    assert_eq!(out("striker.vehicle_smoke", s, "rounds_left"), "2");
    assert_eq!(
        refusals(attempt("striker.vehicle_smoke", &[("dischargers", "4"), ("rounds_left", "0")], "")).len(),
        1
    );
}

// ------------------------------------------------------------------ 53 planetary environment

/// T3 and X36: every printed horizon equals the formula sqrt(2AR + A^2) with A = 2 m, in metres / 10,
/// rounded to nearest; and the table's radii are 800 km per size code.
#[test]
fn t3_horizon_matches_the_formula_for_every_world_size() {
    let printed = [179, 253, 310, 358, 400, 438, 473, 506, 537, 566];
    for (i, want) in printed.iter().enumerate() {
        let size = (i + 1).to_string();
        let radius = ((i + 1) * 800).to_string();
        assert_eq!(
            out("striker.horizon", &[("world_size", &size)], "horizon_cm"),
            want.to_string(),
            "T3 size {size}"
        );
        assert_eq!(
            out("striker.horizon", &[("world_size", &size)], "radius_km"),
            radius,
            "T3 size {size}"
        );
        assert_eq!(
            out(
                "striker.horizon_distance",
                &[("radius_km", &radius), ("altitude_m", "2")],
                "horizon_cm"
            ),
            want.to_string(),
            "formula, size {size}"
        );
        // The formula in floating point, as an independent check of the whole-number rounding.
        let r = ((i + 1) * 800_000) as f64;
        assert_eq!(((2.0 * 2.0 * r + 4.0).sqrt() / 10.0).round() as i64, *want as i64);
    }
    // Higher altitudes see farther: 100 m on a size-8 world, sqrt(2 x 100 x 6,400,000 + 10,000) m.
    assert_eq!(
        out(
            "striker.horizon_distance",
            &[("radius_km", "6400"), ("altitude_m", "100")],
            "horizon_cm"
        ),
        "3578"
    );
}

/// 53.B.1: rates divided by G, never more than doubled.
#[test]
fn gravity_movement_rates() {
    let m = |g: &str| out("striker.gravity_movement", &[("rate_cm", "30"), ("gravity", g)], "rate_cm");
    assert_eq!(m("1"), "30");
    assert_eq!(m("2"), "15");
    assert_eq!(m("0.75"), "40");
    assert_eq!(m("0.5"), "60");
    assert_eq!(m("0.1"), "60");
}

/// T-SLOPE: below 0.5 G one category down, ratio 4+ stays sheer; below 0.1 G two down, 4+ steep,
/// 8+ sheer.
#[test]
fn t_slope_low_gravity() {
    let s = |slope: &str, ratio: &str, g: &str| {
        out(
            "striker.gravity_slope",
            &[("slope", slope), ("ratio", ratio), ("gravity", g)],
            "slope",
        )
    };
    assert_eq!(s("steep", "1", "0.5"), "steep");
    assert_eq!(s("steep", "1", "0.4"), "moderate");
    assert_eq!(s("sheer", "3.5", "0.4"), "steep");
    assert_eq!(s("sheer", "4", "0.4"), "sheer");
    assert_eq!(s("gentle", "0.2", "0.4"), "level");
    assert_eq!(s("level", "0", "0.4"), "level");
    assert_eq!(s("sheer", "7.9", "0.09"), "steep");
    assert_eq!(s("sheer", "8", "0.09"), "sheer");
    assert_eq!(s("sheer", "3", "0.09"), "moderate");
    assert_eq!(s("moderate", "0.5", "0.05"), "level");
    assert_eq!(s("steep", "2", "0.1"), "moderate");
}

/// 53.B.2: divided by G; under 50 cm unchanged except grenades; no gain without fire control, none
/// beyond the fire-control limit; energy weapons untouched.
#[test]
fn gravity_weapon_ranges() {
    let r = |extra: &[(&'static str, &'static str)]| out("striker.gravity_weapon_range", extra, "range_cm");
    assert_eq!(r(&[("range_cm", "100"), ("gravity", "2")]), "50");
    assert_eq!(r(&[("range_cm", "40"), ("gravity", "2")]), "40");
    assert_eq!(r(&[("range_cm", "40"), ("gravity", "2"), ("grenade", "true")]), "20");
    assert_eq!(r(&[("range_cm", "100"), ("gravity", "0.5")]), "100");
    assert_eq!(
        r(&[
            ("range_cm", "100"),
            ("gravity", "0.5"),
            ("fire_control", "true"),
            ("fire_control_limit_cm", "150")
        ]),
        "150"
    );
    assert_eq!(
        r(&[
            ("range_cm", "100"),
            ("gravity", "0.5"),
            ("fire_control", "true"),
            ("fire_control_limit_cm", "500")
        ]),
        "200"
    );
    assert_eq!(r(&[("range_cm", "100"), ("gravity", "2"), ("energy_weapon", "true")]), "100");
}

/// T4: the atmosphere range constants, read through a weapon whose long band is 100 cm.
#[test]
fn t4_atmosphere_constants() {
    for (atm, k100) in [
        ("vacuum", "100000"),
        ("trace_atmosphere", "10000"),
        ("very_thin", "1000"),
        ("thin", "200"),
        ("standard", "100"),
        ("dense", "50"),
        ("exotic", "10"),
        ("corrosive", "10"),
        ("insidious", "10"),
        // Tainted: its base type (A14).
        ("very_thin_tainted", "1000"),
        ("thin_tainted", "200"),
        ("standard_tainted", "100"),
        ("dense_tainted", "50"),
    ] {
        let got = out(
            "striker.energy_weapon_atmosphere",
            &[
                ("atmosphere", atm),
                ("range_cm", "10"),
                ("short_range_cm", "50"),
                ("long_range_cm", "100"),
                ("short_to_hit", "8"),
                ("long_to_hit", "10"),
                ("short_penetration", "7"),
                ("long_penetration", "3"),
            ],
            "long_penetration_to_cm",
        );
        assert_eq!(got, k100, "{atm}");
    }
    // Dense air: at 40 cm the to-hit band is still short (8+), but penetration is the long band's (3),
    // and beyond 50 cm none.
    let dense = |range: &'static str, name: &str| {
        out(
            "striker.energy_weapon_atmosphere",
            &[
                ("atmosphere", "dense"),
                ("range_cm", range),
                ("short_range_cm", "50"),
                ("long_range_cm", "100"),
                ("short_to_hit", "8"),
                ("long_to_hit", "10"),
                ("short_penetration", "7"),
                ("long_penetration", "3"),
            ],
            name,
        )
    };
    assert_eq!(dense("40", "to_hit"), "8");
    assert_eq!(dense("40", "penetration"), "3");
    assert_eq!(dense("60", "penetration"), "0");
    assert_eq!(dense("101", "in_range"), "false");
}

/// T-ATMPROT: masks, oxygen and suits; vehicles sealed, overpressure, life support; killed without;
/// wounds one level worse where a suit is needed.
#[test]
fn t_atmprot_protection() {
    let prot = |sets: &[(&str, &str)]| out("striker.atmosphere_protection", sets, "protected");
    assert_eq!(prot(&[("atmosphere", "standard")]), "true");
    assert_eq!(prot(&[("atmosphere", "thin")]), "true");
    assert_eq!(prot(&[("atmosphere", "standard_tainted")]), "false");
    assert_eq!(prot(&[("atmosphere", "standard_tainted"), ("mask", "filter_mask")]), "true");
    assert_eq!(prot(&[("atmosphere", "very_thin"), ("mask", "filter_mask")]), "false");
    assert_eq!(prot(&[("atmosphere", "very_thin"), ("mask", "compressor_mask")]), "true");
    assert_eq!(prot(&[("atmosphere", "exotic"), ("oxygen_tanks", "true")]), "true");
    assert_eq!(prot(&[("atmosphere", "corrosive"), ("oxygen_tanks", "true")]), "false");
    assert_eq!(
        prot(&[("atmosphere", "vacuum"), ("oxygen_tanks", "true"), ("suit", "vacc_suit")]),
        "true"
    );
    assert_eq!(prot(&[("atmosphere", "vacuum"), ("suit", "battle_dress")]), "false");
    // Vehicles: overpressure only against very thin or tainted; elsewhere sealed with life support;
    // life support in an open vehicle replaces the tanks, not the suit.
    assert_eq!(
        prot(&[("atmosphere", "very_thin"), ("in_vehicle", "true"), ("sealing", "overpressure")]),
        "true"
    );
    assert_eq!(
        prot(&[("atmosphere", "vacuum"), ("in_vehicle", "true"), ("sealing", "overpressure")]),
        "false"
    );
    assert_eq!(
        prot(&[
            ("atmosphere", "vacuum"),
            ("in_vehicle", "true"),
            ("sealing", "sealed"),
            ("life_support", "true")
        ]),
        "true"
    );
    assert_eq!(
        prot(&[("atmosphere", "vacuum"), ("in_vehicle", "true"), ("life_support", "true")]),
        "false"
    );
    assert_eq!(
        prot(&[
            ("atmosphere", "vacuum"),
            ("in_vehicle", "true"),
            ("life_support", "true"),
            ("suit", "combat_armor")
        ]),
        "true"
    );
    assert_eq!(out("striker.atmosphere_protection", &[("atmosphere", "vacuum")], "killed"), "true");
    for (atm, worse) in [
        ("vacuum", "true"),
        ("corrosive", "true"),
        ("exotic", "false"),
        ("very_thin", "false"),
    ] {
        assert_eq!(
            out("striker.atmosphere_protection", &[("atmosphere", atm)], "wounds_one_level_worse"),
            worse,
            "{atm}"
        );
    }
}

/// 53.C.1, 53.C.4, 53.D: ACV multiples; air-breathing engines; aircraft.
#[test]
fn atmosphere_vehicles_and_acvs() {
    let acv = |atm: &str, opt: bool| {
        let mut v = vec![("atmosphere", atm)];
        if opt {
            v.push(("battlefield_acv_very_thin_inoperable", "on"));
        }
        out("striker.acv_atmosphere", &v, "multiple")
    };
    for (atm, m) in [
        ("vacuum", "0"),
        ("trace_atmosphere", "0"),
        ("very_thin", "0.5"),
        ("thin", "0.5"),
        ("standard", "1"),
        ("dense", "2"),
        ("exotic", "2"),
        ("corrosive", "2"),
        ("insidious", "2"),
        ("standard_tainted", "1"),
    ] {
        assert_eq!(acv(atm, false), m, "{atm}");
    }
    assert_eq!(acv("very_thin", true), "0");
    let v = |sets: &[(&str, &str)], name: &str| out("striker.atmosphere_vehicles", sets, name);
    assert_eq!(v(&[("atmosphere", "exotic"), ("air_breathing", "true")], "engine_works"), "false");
    assert_eq!(
        v(&[("atmosphere", "very_thin"), ("air_breathing", "true")], "engine_works"),
        "false"
    );
    assert_eq!(
        v(
            &[
                ("atmosphere", "very_thin"),
                ("air_breathing", "true"),
                ("intake_compressors", "true")
            ],
            "engine_works"
        ),
        "true"
    );
    assert_eq!(v(&[("atmosphere", "vacuum")], "engine_works"), "true");
    assert_eq!(
        v(
            &[("atmosphere", "very_thin"), ("aircraft", "true"), ("built_for", "very_thin")],
            "aircraft_usable"
        ),
        "false"
    );
    assert_eq!(
        v(&[("atmosphere", "standard_tainted"), ("aircraft", "true")], "aircraft_usable"),
        "true"
    );
    assert_eq!(
        v(&[("atmosphere", "thin_tainted"), ("aircraft", "true")], "aircraft_usable"),
        "false"
    );
    assert_eq!(v(&[("atmosphere", "dense"), ("aircraft", "true")], "aircraft_usable"), "false");
    assert_eq!(
        v(
            &[("atmosphere", "standard"), ("aircraft", "true"), ("same_gravity", "false")],
            "aircraft_usable"
        ),
        "false"
    );
}

// ------------------------------------------------------------------ 54 surprise

/// T-SURPRISE and X11: power-up 2 (elite, player character), 3, 4, 6 turns; arming 1, 2, 3 by
/// initiative; the morale check passes on 2D <= morale and fails by roll - morale.
#[test]
fn t_surprise_timings_and_the_morale_check() {
    for (driver, turns) in [
        ("elite", 2),
        ("player_character", 2),
        ("veteran", 3),
        ("regular", 4),
        ("recruit", 6),
    ] {
        let o = resolve("striker.surprise_readiness", &[("morale", "12"), ("driver", driver)], "", &[1, 1]).unwrap();
        assert_eq!(field(&o, "ready_end_of_turn"), turns.to_string(), "{driver}");
        assert_eq!(field(&o, "acts_turn"), (turns + 1).to_string(), "{driver}");
    }
    for (init, turns) in [("high", 1), ("average", 2), ("low", 3)] {
        let o = resolve(
            "striker.surprise_readiness",
            &[("morale", "12"), ("stand", "quarters"), ("initiative", init)],
            "",
            &[1, 1],
        )
        .unwrap();
        assert_eq!(field(&o, "ready_end_of_turn"), turns.to_string(), "{init}");
    }
    let d = dist("striker.surprise_readiness", &[("morale", "10")]);
    assert_eq!(p(&d, "passed", "true"), "11/12");
    assert_eq!(p(&d, "panic_turns", "0"), "11/12");
    assert_eq!(p(&d, "panic_turns", "1"), "1/18");
    assert_eq!(p(&d, "panic_turns", "2"), "1/36");
    assert_eq!(p(&d, "acts_turn", "7"), "1/36");
    let d = dist("striker.surprise_readiness", &[("morale", "4")]);
    assert_eq!(p(&d, "passed", "true"), "1/6");
    assert_eq!(p(&d, "panic_turns", "8"), "1/36");
}

// ------------------------------------------------------------------ 55 engineering

/// T-EARTH: 1.5 m3 a man-hour by hand, 6 by machine, wood and stone 0.75, armor plate 6 a crane-hour;
/// reinforcing doubles unsupervised; one engineer per ten workers.
#[test]
fn t_earth_rates_and_supervision() {
    let t = |work: &str, extra: &[(&'static str, &'static str)]| {
        let mut v: Vec<(&str, &str)> = vec![("work", work), ("volume_m3", "6")];
        v.extend_from_slice(extra);
        out("striker.fortification_time", &v, "man_hours")
    };
    assert_eq!(t("earth_by_hand", &[]), "4");
    assert_eq!(t("earth_by_machine", &[]), "1");
    assert_eq!(t("wood", &[]), "8");
    assert_eq!(t("stone", &[]), "8");
    assert_eq!(t("armor_plate", &[]), "1");
    assert_eq!(t("earth_by_hand", &[("supervised", "false")]), "4");
    assert_eq!(t("wood", &[("supervised", "false")]), "16");
    let r = refusals(attempt(
        "striker.fortification_time",
        &[("volume_m3", "6"), ("engineers", "1"), ("workers", "11")],
        "",
    ));
    assert_eq!(r.len(), 1);
    // Dugout volumes: 9 m3 a man; 9 per crew and 1 per weapon ton; 1.2 and 2.4 chassis volumes.
    let f = |sets: &[(&str, &str)], name: &str| out("striker.fortification", sets, name);
    assert_eq!(
        f(&[("shelter", "crew_weapon"), ("men", "3"), ("weapon_tons", "2.5")], "earth_m3"),
        "29.5"
    );
    assert_eq!(f(&[("shelter", "vehicle_hull_down"), ("chassis_m3", "10")], "earth_m3"), "12");
    assert_eq!(f(&[("shelter", "vehicle_full"), ("chassis_m3", "10")], "earth_m3"), "24");
    assert_eq!(f(&[("shelter", "infantry"), ("men", "1")], "dig_man_hours"), "6");
    assert_eq!(
        f(&[("shelter", "infantry"), ("men", "4"), ("cover_cm", "30")], "cover_wood_min_cm"),
        "10"
    );
    assert_eq!(
        f(&[("shelter", "infantry"), ("men", "4"), ("cover_cm", "30")], "camouflage_man_hours"),
        "12"
    );
}

/// 55.A.1: concrete hardening by tech level and its support.
#[test]
fn concrete_hardening_by_tech_level() {
    for (tl, h) in [
        ("5", "24"),
        ("8", "24"),
        ("9", "12"),
        ("10", "12"),
        ("11", "6"),
        ("12", "6"),
        ("13", "3"),
        ("15", "3"),
    ] {
        assert_eq!(
            out("striker.concrete_cover", &[("tl", tl), ("thickness_cm", "40")], "hardening_hours"),
            h,
            "TL{tl}"
        );
    }
    assert_eq!(
        out("striker.concrete_cover", &[("tl", "9"), ("thickness_cm", "40")], "wood_support_cm"),
        "20"
    );
    assert_eq!(
        out("striker.concrete_cover", &[("tl", "9"), ("thickness_cm", "40")], "plate_support_cm"),
        "2"
    );
    assert_eq!(
        refusals(attempt(
            "striker.concrete_cover",
            &[("tl", "9"), ("thickness_cm", "40"), ("supervised", "false")],
            ""
        ))
        .len(),
        1
    );
}

/// T5: every armor multiple.
#[test]
fn t5_armor_multiples() {
    for (m, steel) in [
        ("loose_dirt", "3"),
        ("packed_dirt", "15"),
        ("stone", "15"),
        ("wood", "2.5"),
        ("concrete", "25"),
        ("reinforced_concrete", "50"),
        ("masonry", "25"),
    ] {
        assert_eq!(
            out(
                "striker.fortification_armor",
                &[("material", m), ("thickness_cm", "100")],
                "steel_cm"
            ),
            steel,
            "{m}"
        );
    }
}

/// 55.B: bridges cost four times the movement; installed one at a time; ferries.
#[test]
fn water_barriers() {
    let b = &[
        ("span_cm", "2"),
        ("capacity_t", "30"),
        ("emplace_turns", "5"),
        ("in_series", "2"),
        ("side_by_side", "true"),
    ];
    assert_eq!(out("striker.pontoon_bridges", b, "bridges"), "4");
    assert_eq!(out("striker.pontoon_bridges", b, "emplace_turns"), "20");
    assert_eq!(out("striker.pontoon_bridges", b, "crossing_cost"), "4");
    let f = &[
        ("deck_length_m", "8"),
        ("deck_width_m", "3.5"),
        ("weight_t", "20"),
        ("volume_m3", "45"),
    ];
    assert_eq!(out("striker.ferry_capacity", f, "men"), "28");
    assert_eq!(out("striker.ferry_capacity", f, "cargo_t"), "25");
    let g = &[
        ("deck_length_m", "8"),
        ("deck_width_m", "3.5"),
        ("weight_t", "50"),
        ("volume_m3", "45"),
    ];
    assert_eq!(out("striker.ferry_capacity", g, "cargo_t"), "0");
}

/// T-MINES: emplaced 7+ (21/36); scatterable 10+ with +1 per extra increment (X17: three times, 8+);
/// antivehicle pressure mines always add suspension damage, proximity half the time.
#[test]
fn t_mines_attack_odds() {
    let d = dist("striker.mine_attack", &[]);
    assert_eq!(p(&d, "hit", "true"), two_d_at_least(7));
    for (k, n) in [(1, 10), (2, 9), (3, 8), (5, 6)] {
        let ks = k.to_string();
        let d = dist("striker.mine_attack", &[("field", "scatterable"), ("rounds_multiple", &ks)]);
        assert_eq!(p(&d, "hit", "true"), two_d_at_least(n), "scatterable x{k}");
        assert_eq!(p(&d, "target", &n.to_string()), "1");
    }
    let d = dist(
        "striker.mine_attack",
        &[("trigger", "pressure"), ("antivehicle", "true"), ("crosser", "ground_vehicle")],
    );
    assert_eq!(p(&d, "suspension_damage", "true"), "7/12");
    let d = dist(
        "striker.mine_attack",
        &[("trigger", "proximity"), ("antivehicle", "true"), ("crosser", "ground_vehicle")],
    );
    assert_eq!(p(&d, "suspension_damage", "true"), "7/24");
}

/// 55.C.3-4: one attack per 2 mm (emplaced) or per 1 cm (scatterable), whole increments only (A19);
/// who triggers what; the first hit may halt the unit.
#[test]
fn minefield_crossings() {
    let d = dist("striker.minefield_crossing", &[("distance_mm", "7")]);
    assert_eq!(p(&d, "attacks", "3"), "1");
    assert_eq!(p(&d, "hits", "0"), "125/1728");
    let d = dist("striker.minefield_crossing", &[("distance_mm", "25"), ("field", "scatterable")]);
    assert_eq!(p(&d, "attacks", "2"), "1");
    let d = dist("striker.minefield_crossing", &[("distance_mm", "8"), ("antivehicle", "true")]);
    assert_eq!(p(&d, "attacks", "0"), "1", "personnel do not trigger antivehicle mines");
    let d = dist("striker.minefield_crossing", &[("distance_mm", "8"), ("crosser", "grav_noe")]);
    assert_eq!(p(&d, "attacks", "0"), "1", "grav vehicles trigger proximity mines only");
    let d = dist(
        "striker.minefield_crossing",
        &[("distance_mm", "8"), ("crosser", "grav_noe"), ("trigger", "proximity")],
    );
    assert_eq!(p(&d, "attacks", "4"), "1");
    let d = dist("striker.minefield_crossing", &[("distance_mm", "4"), ("halt_on_hit", "true")]);
    assert_eq!(p(&d, "attacks", "1"), "7/12");
    assert_eq!(p(&d, "hits", "2"), "0");
    assert_eq!(
        refusals(attempt(
            "striker.minefield_crossing",
            &[("distance_mm", "4"), ("trigger", "remote")],
            ""
        ))
        .len(),
        1
    );
}

/// 55.C.2, 55.C.6: laying times; camouflage by hand only, three times; plowed fields camouflage free.
#[test]
fn mine_laying_times() {
    let h = |sets: &[(&str, &str)]| out("striker.mine_laying", sets, "hours");
    assert_eq!(h(&[("kg", "500")]), "5");
    assert_eq!(h(&[("kg", "500"), ("method", "by_machine")]), "0.5");
    assert_eq!(h(&[("kg", "500"), ("camouflaged", "true")]), "15");
    assert_eq!(h(&[("kg", "500"), ("ground", "plowed_field")]), "5");
    assert_eq!(
        out("striker.mine_laying", &[("kg", "500"), ("ground", "plowed_field")], "camouflaged"),
        "true"
    );
    assert_eq!(
        refusals(attempt(
            "striker.mine_laying",
            &[("kg", "500"), ("camouflaged", "true"), ("method", "by_machine")],
            ""
        ))
        .len(),
        1
    );
    assert_eq!(
        refusals(attempt(
            "striker.mine_laying",
            &[("kg", "500"), ("camouflaged", "true"), ("ground", "ice")],
            ""
        ))
        .len(),
        1
    );
}

/// 55.C.7.a: clearance rates; detectors; the scatterable increment per 2 mm, or once with the option.
#[test]
fn mine_clearance_rates() {
    let t = |sets: &[(&str, &str)]| out("striker.mine_clearance", sets, "turns");
    assert_eq!(t(&[("mines", "camouflaged"), ("depth_mm", "4")]), "16");
    assert_eq!(t(&[("mines", "visible"), ("depth_mm", "4")]), "8");
    assert_eq!(t(&[("mines", "remote_camouflaged"), ("remote_mines", "3")]), "6");
    assert_eq!(t(&[("mines", "remote_visible"), ("remote_mines", "3")]), "3");
    assert_eq!(
        t(&[
            ("mines", "camouflaged"),
            ("depth_mm", "4"),
            ("detector", "magnetic"),
            ("metallic", "true")
        ]),
        "8"
    );
    assert_eq!(t(&[("mines", "camouflaged"), ("depth_mm", "4"), ("detector", "magnetic")]), "16");
    assert_eq!(t(&[("mines", "camouflaged"), ("depth_mm", "4"), ("detector", "chemical")]), "8");
    assert_eq!(t(&[("mines", "scatterable"), ("depth_mm", "10")]), "5");
    assert_eq!(t(&[("mines", "scatterable"), ("depth_mm", "10"), ("rounds_multiple", "3")]), "15");
    assert_eq!(
        t(&[
            ("mines", "scatterable"),
            ("depth_mm", "10"),
            ("rounds_multiple", "3"),
            ("battlefield_mine_increment_once", "on")
        ]),
        "7"
    );
}

/// 55.C.7.b: bangalore torpedoes: 2 mm each, 2 turns each; fragmentation (penetration 1) on 8+
/// within 2 cm.
#[test]
fn bangalore_torpedoes() {
    assert_eq!(out("striker.bangalore_torpedo", &[("torpedoes", "5")], "cleared_mm"), "10");
    assert_eq!(out("striker.bangalore_torpedo", &[("torpedoes", "5")], "emplace_turns"), "10");
    let d = dist("striker.bangalore_fragmentation", &[("distance_cm", "2")]);
    assert_eq!(p(&d, "hit", "true"), two_d_at_least(8));
    assert_eq!(p(&d, "penetration", "1"), two_d_at_least(8));
    let d = dist("striker.bangalore_fragmentation", &[("distance_cm", "3")]);
    assert_eq!(p(&d, "hit", "true"), "0");
}

/// 55.D: wire fouls a wheeled vehicle on 10+, freed on 12; infantry need a turn per 2 mm; obstacle
/// building and clearing times; obstacle armor values.
#[test]
fn obstacles() {
    let d = dist("striker.wire_fouling", &[]);
    assert_eq!(p(&d, "fouled", "true"), two_d_at_least(10));
    let d = dist("striker.wire_fouling", &[("free_attempts", "1")]);
    assert_eq!(p(&d, "freed_after", "1"), "1/216"); // 1/6 x 1/36
    assert_eq!(p(&dist("striker.wire_fouling", &[("wheeled", "false")]), "fouled", "true"), "0");
    assert_eq!(out("striker.wire_infantry", &[("depth_mm", "5")], "turns"), "3");
    let h = |o: &str, a: &str, machine: &str| {
        out(
            "striker.obstacle_construction",
            &[("obstacle", o), ("amount", a), ("machine", machine)],
            "hours",
        )
    };
    assert_eq!(h("antiarmor_ditch", "1", "false"), "200");
    assert_eq!(h("antiarmor_ditch", "1", "true"), "50");
    assert_eq!(h("wire", "10", "false"), "2");
    assert_eq!(h("abatis", "2", "false"), "40");
    assert_eq!(h("posts", "2", "false"), "10");
    // Without explosives: a bulldozer's ditch breach in 10 turns, wire cutters in 4, a vehicle at
    // once; abatis cleared at 10 bulldozer minutes or 20 man-hours a 1 cm square.
    let c = |m: &str, squares: &str, field: &str| out("striker.obstacle_clearing", &[("method", m), ("squares", squares)], field);
    assert_eq!(c("ditch_bulldozer", "1", "turns"), "10");
    assert_eq!(c("wire_cutters", "1", "turns"), "4");
    assert_eq!(c("wire_vehicle", "1", "turns"), "0");
    assert_eq!(c("abatis_bulldozer", "3", "minutes"), "30");
    assert_eq!(c("abatis_by_hand", "3", "man_hours"), "60");
    assert_eq!(c("abatis_by_hand", "3", "minutes"), "0");
    assert_eq!(out("striker.obstacle_armor", &[("obstacle", "posts")], "armor"), "9");
    assert_eq!(out("striker.obstacle_armor", &[("obstacle", "steel_concrete")], "armor"), "15");
}

// ------------------------------------------------------------------ 56 explosives

/// T-OBSTACLE: the points of every task; TDX cannot crater roads or dig ditches.
#[test]
fn t_obstacle_demolition_points() {
    for (task, pts) in [
        ("antiarmor_ditch", "300"),
        ("ditch_passage", "100"),
        ("wire_breach", "0"),
        ("abatis_create", "50"),
        ("abatis_clear", "500"),
        ("posts_breach", "10"),
        ("posts_clear", "20"),
        ("steel_gap", "100"),
        ("steel_square", "500"),
        ("road_crater", "200"),
        ("highway_crater", "400"),
        ("wood_bridge", "10"),
        ("stone_bridge", "20"),
        ("steel_bridge", "30"),
    ] {
        assert_eq!(
            out("striker.demolition_task_check", &[("task", task), ("points", "1")], "needed"),
            pts,
            "{task}"
        );
    }
    let done = |sets: &[(&str, &str)]| out("striker.demolition_task_check", sets, "done");
    assert_eq!(done(&[("task", "road_crater"), ("points", "200")]), "true");
    assert_eq!(done(&[("task", "road_crater"), ("points", "199.5")]), "false");
    assert_eq!(done(&[("task", "road_crater"), ("points", "500"), ("charge", "tdx")]), "false");
    assert_eq!(done(&[("task", "wire_breach"), ("points", "0.5")]), "true");
    assert_eq!(done(&[("task", "stone_bridge"), ("points", "60"), ("amount", "3")]), "true");
    assert_eq!(done(&[("task", "stone_bridge"), ("points", "59"), ("amount", "3")]), "false");
}

/// T-CHARGES and 56.A: weights; blocks; tamping conventional only; 30 turns a charge in parallel, 60
/// tamped; the satchel exception; nuclear kt x 1,000,000.
#[test]
fn t_charges_values_and_emplacement() {
    let c = |sets: &[(&str, &str)], name: &str| out("striker.demolition_charge", sets, name);
    assert_eq!(c(&[("charge", "shaped"), ("listed_value", "40")], "weight_kg"), "20");
    assert_eq!(c(&[("charge", "tdx"), ("listed_value", "40")], "weight_kg"), "1");
    assert_eq!(c(&[("listed_value", "10"), ("charges", "0"), ("blocks", "3")], "value"), "3");
    assert_eq!(c(&[("listed_value", "10"), ("charges", "0"), ("blocks", "3")], "weight_kg"), "3");
    assert_eq!(c(&[("listed_value", "10")], "emplace_turns"), "2");
    assert_eq!(c(&[("listed_value", "10"), ("charges", "4")], "emplace_turns"), "120");
    assert_eq!(
        c(&[("listed_value", "10"), ("charges", "4"), ("soldiers", "2")], "emplace_turns"),
        "60"
    );
    assert_eq!(
        c(&[("listed_value", "10"), ("charges", "4"), ("soldiers", "4")], "emplace_turns"),
        "30"
    );
    assert_eq!(
        c(
            &[("listed_value", "10"), ("charges", "2"), ("soldiers", "2"), ("tamped", "true")],
            "emplace_turns"
        ),
        "60"
    );
    assert_eq!(c(&[("listed_value", "10"), ("charges", "2"), ("tamped", "true")], "value"), "40");
    assert_eq!(
        refusals(attempt(
            "striker.demolition_charge",
            &[("charge", "shaped"), ("listed_value", "10"), ("tamped", "true")],
            ""
        ))
        .len(),
        1
    );
    assert_eq!(
        refusals(attempt(
            "striker.demolition_charge",
            &[("charge", "tdx"), ("listed_value", "10"), ("blocks", "2")],
            ""
        ))
        .len(),
        1
    );
    assert_eq!(out("striker.nuclear_demolition", &[("kilotons", "0.01")], "value"), "10000");
}

/// F33 (56.D.3, 56.E.2): conventional P - 40 (at least 1) within 1 cm, 8 less each further cm, none
/// below 1; TDX 25 and 4; shaped none.
#[test]
fn charge_fragmentation_bands() {
    let f = |charge: &str, pen: &str, d: &str| {
        let o = resolve(
            "striker.charge_fragmentation",
            &[("charge", charge), ("listed_penetration", pen), ("distance_cm", d)],
            "",
            &[],
        )
        .unwrap();
        (field(&o, "attack"), field(&o, "penetration"))
    };
    assert_eq!(f("conventional", "60", "1"), ("true".into(), "20".into()));
    assert_eq!(f("conventional", "60", "2"), ("true".into(), "12".into()));
    assert_eq!(f("conventional", "60", "3"), ("true".into(), "4".into()));
    assert_eq!(f("conventional", "60", "4"), ("false".into(), "0".into()));
    assert_eq!(f("conventional", "30", "1"), ("true".into(), "1".into()));
    assert_eq!(f("conventional", "30", "2"), ("false".into(), "0".into()));
    assert_eq!(f("tdx", "60", "1"), ("true".into(), "35".into()));
    assert_eq!(f("tdx", "60", "3"), ("true".into(), "27".into()));
    assert_eq!(f("shaped", "60", "1"), ("false".into(), "0".into()));
}

/// 56.D.2, 56.E.2: TDX may not breach a horizontal surface.
#[test]
fn breaches() {
    let r = refusals(attempt(
        "striker.demolition_breach",
        &[
            ("material", "concrete"),
            ("wall_cm", "50"),
            ("breach_cm", "100"),
            ("charge", "tdx"),
            ("horizontal", "true"),
        ],
        "",
    ));
    assert!(
        r.len() == 1 && r[0].contains("horizontal surface") && r[0].contains("56.E.2"),
        "{r:?}"
    );
}
