#!/usr/bin/env bash
# What a new user does first with the installed package, run where it is installed (test.sh runs
# it in a fresh Debian 12 chroot): validate the examples, read the man page, complete a command,
# run the quickstart from the installed files with the installed binary, from a directory of
# their own. Fails at the first thing that does not work.
set -euo pipefail
share=/usr/share/upfbench
step() { echo "installed: $*"; }

[[ $(command -v upfbench) == /usr/bin/upfbench ]]
step "$(upfbench --version)"

# Every example on its own (a profile against every system file is a cross-check some pairs are
# not meant for: imix's 1472-byte payload over the lab's 1500-byte MTU), then the quickstart's pair.
for f in "$share"/systems/*.yaml "$share"/profiles/*.yaml; do
  upfbench validate "$f" > /dev/null
done
upfbench validate "$share/systems/memif.yaml" "$share/profiles/quickstart.yaml" > /dev/null
step "validate: $(ls "$share"/systems/*.yaml "$share"/profiles/*.yaml | wc -l) example files ok"

# Every example names its kind's schema, installed beside it, on its first line (for editors).
for f in "$share"/systems/*.yaml "$share"/profiles/*.yaml; do
  schema=$(sed -n '1s|^# yaml-language-server: \$schema=||p' "$f")
  [[ -n $schema && -s $(dirname "$f")/$schema ]] \
    || { echo "$f: its first line names no installed schema (${schema:-none})" >&2; exit 1; }
done
step "schema: every example names one of $(ls "$share"/schema/*.schema.json | wc -l) installed schemas"

# The man pages render with no warning from groff, and upfbench(1) names every subcommand's page.
export MANWIDTH=80
for page in /usr/share/man/man1/upfbench*.1.gz; do
  name=$(basename "$page" .1.gz)
  warnings=$(man --warnings -P cat "$name" 2>&1 > /dev/null)
  [[ -z $warnings ]] || { echo "man $name: $warnings" >&2; exit 1; }
done
for sub in $(upfbench --help | awk '/^Commands:/ {on=1; next} /^$/ {on=0} on {print $1}'); do
  [[ $sub == help ]] && continue
  man -P cat upfbench | grep -q "upfbench-$sub(1)" || { echo "upfbench(1) lacks upfbench-$sub(1)" >&2; exit 1; }
done
step "man: $(ls /usr/share/man/man1/upfbench*.1.gz | wc -l) pages render with no warning"

# The bash completion, sourced as bash-completion would, completes a subcommand and an option.
source /usr/share/bash-completion/completions/upfbench
complete -p upfbench > /dev/null
complete_words() {
  COMP_WORDS=("$@")
  COMP_CWORD=$(($# - 1))
  _upfbench upfbench "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
  echo "${COMPREPLY[*]}"
}
[[ $(complete_words upfbench vali) == validate ]]
[[ $(complete_words upfbench sweep --pay) == --payloads ]]
step "bash completion: 'upfbench vali' -> validate, 'upfbench sweep --pay' -> --payloads"

# The quickstart from the installed files, in a directory of the user's: reports land there.
work=$(mktemp -d)
cd "$work"
timeout 300 "$share/quickstart.sh" > quickstart.log 2>&1 || { cat quickstart.log >&2; exit 1; }
report=$(ls -d reports/*-quickstart-sweep)
[[ -s $report/report.json && -s $report/report.html ]]
grep -q '^reflect: totals' reports/quickstart-reflector.log
step "quickstart: its reports in $work/$report; $(grep 'EAL memory' quickstart.log)"
