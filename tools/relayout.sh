#!/usr/bin/env bash
# One home for each concept (issue 25): moves files to the layer they
# belong to and rewrites what names them, on whatever tree it runs in.
#
#   collectors/common/   below everything: errors, fds, the one small-file
#                        reader and directory lister, logging, YAML maps
#   collectors/metrics/  families, label sets, MetricSet, hw counter table
#   collectors/host/     the host model (topology) and host tuning facts
#   collectors/nl/       netlink transport and the netlink sources that
#                        several collectors read (RDMA, dcbnl)
#   collectors/probing/  what the probe and the fabric probe share
#   collectors/*.h       the Collector interface, options, specs, HTTP
#                        endpoints
#   collectors/<name>/   one collector each; none includes another
#
# For each move it runs `git mv` (skipped when done already or when the
# file is gone), then rewrites every occurrence of the old path in #include
# lines, comments and docs (the exact path, or its stem followed by
# .h/.cc/.*/.{), moves the .cc between CMake source lists, and sorts each
# run of #include "..." lines it changed. Running it again changes nothing.
# tests/layout/check_includes.py checks the result.
#
# Usage: tools/relayout.sh [--dry-run]
set -euo pipefail

dry_run=0
[[ ${1:-} == --dry-run ]] && dry_run=1

root=$(git rev-parse --show-toplevel)
cd "$root"

# old path -> new path, one move a line.
read -r -d '' MOVES <<'LIST' || true
collectors/model/host_model.h           collectors/host/host_model.h
collectors/model/host_model.cc          collectors/host/host_model.cc
collectors/model/model_view.h           collectors/host/model_view.h
collectors/model/sysfs_parse.h          collectors/host/sysfs_parse.h
collectors/model/sysfs_parse.cc         collectors/host/sysfs_parse.cc
collectors/roce/host_facts.h            collectors/host/host_facts.h
collectors/roce/host_facts.cc           collectors/host/host_facts.cc
collectors/model/family.h               collectors/metrics/family.h
collectors/model/family.cc              collectors/metrics/family.cc
collectors/model/label_set.h            collectors/metrics/label_set.h
collectors/model/label_set.cc           collectors/metrics/label_set.cc
collectors/model/label_cache.h          collectors/metrics/label_cache.h
collectors/model/label_cache.cc         collectors/metrics/label_cache.cc
collectors/model/port_families.h        collectors/metrics/port_families.h
collectors/common/metric_set.h          collectors/metrics/metric_set.h
collectors/common/metric_set.cc         collectors/metrics/metric_set.cc
collectors/common/hw_counters.h         collectors/metrics/hw_counters.h
collectors/common/hw_counters.cc        collectors/metrics/hw_counters.cc
collectors/probe/registry_snapshot.h    collectors/metrics/registry_snapshot.h
collectors/probe/registry_snapshot.cc   collectors/metrics/registry_snapshot.cc
collectors/common/http_endpoints.h      collectors/http_endpoints.h
collectors/common/http_endpoints.cc     collectors/http_endpoints.cc
collectors/netlink/transport.h          collectors/nl/transport.h
collectors/netlink/transport.cc         collectors/nl/transport.cc
collectors/netlink/kernel_transport.h   collectors/nl/kernel_transport.h
collectors/netlink/kernel_transport.cc  collectors/nl/kernel_transport.cc
collectors/netlink/device_lister.h      collectors/nl/device_lister.h
collectors/netlink/device_lister.cc     collectors/nl/device_lister.cc
collectors/netlink/replay_transport.h   collectors/nl/replay_transport.h
collectors/netlink/replay_transport.cc  collectors/nl/replay_transport.cc
collectors/netlink/attr_parser.h        collectors/nl/attr_parser.h
collectors/netlink/attr_parser.cc       collectors/nl/attr_parser.cc
collectors/netlink/attr_writer.h        collectors/nl/attr_writer.h
collectors/netlink/attr_writer.cc       collectors/nl/attr_writer.cc
collectors/netlink/rdma_nl_uapi.h       collectors/nl/rdma_nl_uapi.h
collectors/netlink/rdma_source.h        collectors/nl/rdma_source.h
collectors/netlink/rdma_source.cc       collectors/nl/rdma_source.cc
collectors/roce/dcb_source.h            collectors/nl/dcb_source.h
collectors/roce/dcb_source.cc           collectors/nl/dcb_source.cc
collectors/probe/probe_knobs.h          collectors/probing/probe_knobs.h
collectors/probe/probe_knobs.cc         collectors/probing/probe_knobs.cc
collectors/probe/cpu_pacer.h            collectors/probing/cpu_pacer.h
collectors/probe/cpu_pacer.cc           collectors/probing/cpu_pacer.cc
tests/unit/model/host_model_test.cc     tests/unit/host/host_model_test.cc
tests/unit/sysfs/sysfs_parse_test.cc    tests/unit/host/sysfs_parse_test.cc
tests/unit/roce/host_facts_test.cc      tests/unit/host/host_facts_test.cc
tests/unit/model/label_cache_test.cc    tests/unit/metrics/label_cache_test.cc
tests/unit/metric_set_test.cc           tests/unit/metrics/metric_set_test.cc
tests/unit/sysfs/hw_counters_test.cc    tests/unit/metrics/hw_counters_test.cc
tests/unit/sysfs/counter_tracker_test.cc tests/unit/common/counter_tracker_test.cc
tests/unit/netlink/kernel_transport_test.cc tests/unit/nl/kernel_transport_test.cc
tests/unit/probe/probe_knobs_test.cc    tests/unit/probing/probe_knobs_test.cc
tests/unit/roce/dcb_source_test.cc      tests/unit/nl/dcb_source_test.cc
tests/unit/probe/cpu_pacer_test.cc      tests/unit/probing/cpu_pacer_test.cc
LIST

# The opening comment of a source list this script creates.
declare -A CMAKE_HEADER=(
  [collectors/host]="# The host model (topology) and host tuning facts: what collectors read
# about devices, ports, netdevs, PCI, NUMA and IRQs."
  [collectors/metrics]="# Family declarations, label sets, MetricSet and the hw counter table:
# how every collector writes its samples."
  [collectors/nl]="# The netlink transport and the netlink sources several collectors read."
  [collectors/probing]="# What the probe and the fabric probe share."
)

run() {
  if ((dry_run)); then echo "+ $*"; else "$@"; fi
}

# --- 1. moves ---------------------------------------------------------------
declare -a OLD=() NEW=()
while read -r old new; do
  [[ -z $old ]] && continue
  OLD+=("$old")
  NEW+=("$new")
done <<<"$MOVES"

moved_cc=()  # "old new" of every .cc that lives in a CMake list
for i in "${!OLD[@]}"; do
  old=${OLD[$i]} new=${NEW[$i]}
  if [[ -e $old && -e $new ]]; then
    echo "relayout: both $old and $new exist; merge them by hand" >&2
    exit 1
  fi
  if [[ -e $old ]]; then
    run mkdir -p "$(dirname "$new")"
    run git mv "$old" "$new"
  elif [[ ! -e $new ]]; then
    echo "relayout: $old is gone (neither it nor $new exists); skipped" >&2
    continue
  fi
  if [[ $new == collectors/*.cc ]]; then moved_cc+=("$old $new"); fi
done
((dry_run)) && exit 0

# --- 2. references: #include lines, comments, docs --------------------------
# Stems (path without extension) that move whole: collectors/model/family
# -> collectors/metrics/family, so "family.{h,cc}" and "family.*" follow.
map_file=$(mktemp)
for i in "${!OLD[@]}"; do
  printf '%s\t%s\n' "${OLD[$i]%.*}" "${NEW[$i]%.*}"
done | sort -u >"$map_file"
if [[ $(cut -f1 "$map_file" | uniq -d) ]]; then
  echo "relayout: a stem moves to two places: $(cut -f1 "$map_file" | uniq -d)" >&2
  exit 1
fi

mapfile -t texts < <(git ls-files -- '*.h' '*.cc' '*.c' '*.md' '*.py' '*.sh' \
  '*CMakeLists.txt' '*.cmake' '*.in' ':!:tests/fixtures/**' ':!:tests/golden/**' \
  ':!:tools/relayout.sh' ':!:tests/layout/**')
# A path is rewritten where it stands whole: not inside a longer path or
# name (no letter, digit, '_', '/' or '-' before it). This script and the
# layout check keep old paths on purpose. The C/C++ files that changed are
# listed in $changed.
changed=$(mktemp)
clean=$(mktemp)
trap 'rm -f "$map_file" "$changed" "$clean"' EXIT
# C/C++ files about to change that clang-format finds clean now are
# formatted again afterwards (a longer path can push a comment past 80
# columns); the rest only get their includes sorted.
if command -v clang-format >/dev/null; then
  cut -f1 "$map_file" >"$clean.stems"
  git ls-files -- '*.h' '*.cc' '*.c' | xargs -r grep -lF -f "$clean.stems" |
    while read -r f; do
      if clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then
        echo "$f"
      fi
    done >"$clean"
  rm -f "$clean.stems"
fi
RNIC_MAP=$map_file RNIC_CHANGED=$changed perl -e '
  open my $m, "<", $ENV{RNIC_MAP} or die;
  my %map;
  while (<$m>) { chomp; my ($o, $n) = split /\t/; $map{$o} = $n; }
  my $alt = join "|", map { quotemeta } sort { length $b <=> length $a } keys %map;
  my $re = qr{(?<![\w/-])($alt)(?=\.(?:h|cc|c|\*|\{))};
  open my $log, ">>", $ENV{RNIC_CHANGED} or die;
  for my $f (@ARGV) {
    open my $in, "<", $f or die "$f: $!";
    local $/; my $text = <$in>; close $in;
    (my $out = $text) =~ s/$re/$map{$1}/g;
    next if $out eq $text;
    open my $o, ">", $f or die "$f: $!"; print $o $out; close $o;
    print $log "$f\n" if $f =~ /\.(?:h|cc|c)$/;
  }
' "${texts[@]}"

# Sort each run of #include "..." lines in those files (the file's own
# header, when it opens the run, stays first), as clang-format does.
mapfile -t sources <"$changed"
if ((${#sources[@]})); then
  perl -i -ne '
    sub flush {
      return unless @run;
      my @r = @run; @run = ();
      (my $stem = $ARGV) =~ s{^.*/}{}; $stem =~ s/\.[^.]*$//;
      $stem =~ s/[-_](?:test|unittest)$//;
      my $first = $r[0] =~ m{/\Q$stem\E\.h"} ? shift @r : undef;
      my %seen; @r = grep { !$seen{$_}++ } sort @r;
      print $first if defined $first;
      print @r;
    }
    if (/^#include "[^"]*"/) { push @run, $_; } else { flush(); print; }
    flush() if eof;
  ' -- "${sources[@]}"
fi
mapfile -t formatted <"$clean"
if ((${#formatted[@]})); then clang-format -i -- "${formatted[@]}"; fi

# --- 3. CMake source lists --------------------------------------------------
# A CMakeLists.txt lists its folder's sources relative to itself (or under
# ${CMAKE_CURRENT_SOURCE_DIR}), one a line: drop the old entry wherever it
# stands, add the new one to the first add_library/target_sources block of
# rnic_collectors in the new folder's CMakeLists.txt (made when missing).
drop_source() {  # <cmake dir> <path relative to it>
  local list=$1/CMakeLists.txt rel=$2
  [[ -f $list ]] || return 0
  REL=$rel perl -i -ne '
    print unless /^\s*(?:\$\{CMAKE_CURRENT_SOURCE_DIR\}\/)?\Q$ENV{REL}\E\s*$/;
  ' "$list"
}
add_source() {  # <cmake dir> <file name>
  local dir=$1 name=$2 list=$1/CMakeLists.txt
  if [[ ! -f $list ]]; then
    {
      [[ -n ${CMAKE_HEADER[$dir]:-} ]] && printf '%s\n' "${CMAKE_HEADER[$dir]}"
      printf 'target_sources(rnic_collectors PRIVATE\n)\n'
    } >"$list"
    git add "$list"
  fi
  if NAME=$name perl -ne '$f = 1 if /^\s*(?:\$\{CMAKE_CURRENT_SOURCE_DIR\}\/)?\Q$ENV{NAME}\E\s*$/; END { exit($f ? 0 : 1) }' "$list"; then
    return 0
  fi
  NAME=$name perl -i -ne '
    if (!$done && /^\s*(?:add_library|target_sources)\(rnic_collectors\b/) { $in = 1; }
    if ($in && /^\s*\)/) { print "  $ENV{NAME}\n"; $in = 0; $done = 1; }
    print;
    END { die "no rnic_collectors source list\n" unless $done; }
  ' "$list"
}
for pair in "${moved_cc[@]}"; do
  read -r old new <<<"$pair"
  # Every CMakeLists.txt from the old folder up to collectors/ may list it.
  d=$(dirname "$old")
  while [[ $d == collectors* ]]; do
    drop_source "$d" "${old#"$d"/}"
    d=$(dirname "$d")
  done
  add_source "$(dirname "$new")" "$(basename "$new")"
done

# Folders left empty.
for old in "${OLD[@]}"; do
  d=$(dirname "$old")
  if [[ -d $d && -z $(ls -A "$d") ]]; then rmdir "$d"; fi
done
exit 0
