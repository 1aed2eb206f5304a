#!/usr/bin/env bash
# Writes the seed corpora of the fuzz targets into fuzz/corpus/<target>/ (not committed; cargo fuzz
# adds what it finds there): the built-in rules (one input per system, its files joined with
# `//== SYSTEM/FILE.rules` lines), the compiler's ok and error corpus, every resolver's name for
# the binding and interpreter targets, the worked examples' inputs as YAML, and a few byte
# patterns for the generator. Only bash and coreutils, so CI can run it on a clean machine.
set -euo pipefail
cd "$(dirname "$0")/.."
out=fuzz/corpus
for t in check codegen generated bind interp hostile; do mkdir -p "$out/$t"; done

for dir in rules-src/*/; do
    sys=$(basename "$dir")
    f="$out/check/system-$sys"
    : >"$f"
    for r in "$dir"*.rules; do
        printf '//== %s/%s\n' "$sys" "$(basename "$r")" >>"$f"
        cat "$r" >>"$f"
    done
    cp "$f" "$out/codegen/"
    cp "$f" "$out/hostile/"
    # Every resolver and policy: a name for `bind` (inputs by default) and for `interp` (bytes
    # after the name choose inputs and dice).
    grep -hoE '^\s*(resolver|policy) [A-Za-z_0-9]+' "$dir"*.rules | awk '{print $2}' | while read -r res; do
        printf '%s.%s\n' "$sys" "$res" >"$out/bind/name-$sys.$res"
        { printf '%s.%s\n' "$sys" "$res"; seq 1 40 | tr -d '\n'; } >"$out/interp/name-$sys.$res"
    done
done
for kind in ok err; do
    for r in snapshots/corpus/$kind/*.rules; do
        cp "$r" "$out/check/$kind-$(basename "$r")"
        [ "$kind" = ok ] && cp "$r" "$out/codegen/$kind-$(basename "$r")"
    done
done
for dir in snapshots/corpus/err-folders/*/; do
    f="$out/check/folder-$(basename "$dir")"
    : >"$f"
    for r in "$dir"*.rules; do
        printf '//== corpus/%s\n' "$(basename "$r")" >>"$f"
        cat "$r" >>"$f"
    done
done
# The worked examples: `resolver:` names the resolver, `inputs:` holds the YAML mapping.
for y in tests/examples/*/*.yaml; do
    res=$(awk '/^resolver:/ {print $2; exit}' "$y")
    [ -n "$res" ] || continue
    { printf '%s\n---\n' "$res"; awk '/^inputs:/ {on=1; next} on && /^[^ #]/ {on=0} on {sub(/^  /, ""); print}' "$y"; } \
        >"$out/bind/example-$(basename "$(dirname "$y")")-$(basename "$y")"
done
# A few `--set` cases, one with a YAML file as well.
printf 'starleader.fire\nweapon=Ghazi 10/7\nrange_hexes=5\nspecial_results=true\n' >"$out/bind/set-fire"
printf 'starleader.character\niq=11\nprowess=12\nemotions=9\narmor=Alloid-A\ngadgets=Vacpak,Sealall,Syter\n' >"$out/bind/set-character"
printf 'mercenary.battle\nrounds=3\n---\n' >"$out/bind/set-and-yaml"
cat examples/mercenary-infantry-clash.yaml >>"$out/bind/set-and-yaml"
# The generator's bytes.
for i in 1 2 3 5 8 13 21 34; do
    seq "$i" 7 400 | tr -d '\n' | head -c 600 >"$out/generated/bytes-$i"
done
echo "seed corpora in $out: $(ls "$out/check" | wc -l) check, $(ls "$out/codegen" | wc -l) codegen, $(ls "$out/bind" | wc -l) bind, $(ls "$out/interp" | wc -l) interp, $(ls "$out/generated" | wc -l) generated"

# The shapes that once crashed or ran forever once checked (issue 44): `hostile` mutates from them.
for r in fuzz/seeds/hostile/*.rules; do
    cp "$r" "$out/hostile/seed-$(basename "$r")"
    cp "$r" "$out/check/hostile-$(basename "$r")"
done
