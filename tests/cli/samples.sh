# cli_samples.sh — sourced by tests/cli/cpu.sh and tests/cli/formats.sh after
# cli_lib.sh: reduces `go tool pprof -raw` text to one "V1 V2 ... @ 0xADDR ..." line
# per sample (leaf first), identical stacks summed (pprof merges them when it loads a
# profile), all-zero samples dropped, sorted.  Two profiles agree sample by sample
# when these reductions are equal.

# sp_raw_samples < RAW-TEXT
sp_raw_samples()
{
	awk '
	/^Samples:/ { sec = "s"; hdr = 1; next }
	/^Locations/ { sec = "l"; next }
	/^Mappings/ { sec = "m"; next }
	sec == "s" && hdr { hdr = 0; next }
	sec == "s" && /:/ {
		split($0, h, ":"); vals = h[1]; gsub(/^ +| +$/, "", vals); gsub(/ +/, " ", vals)
		ns++; sv[ns] = vals; sl[ns] = h[2]; next
	}
	sec == "l" && /^ *[0-9]+: 0x/ { id = $1; sub(/:$/, "", id); addr[id] = $2; next }
	END {
		for (i = 1; i <= ns; i++) {
			m = split(sl[i], ids, " "); s = sv[i] " @"
			for (j = 1; j <= m; j++) s = s " " addr[ids[j]]
			print s
		}
	}' | sp_canon_samples
}

# sp_canon_samples < "V1 V2 @ ADDR ..." lines: identical stacks summed, all-zero
# rows dropped, sorted.
sp_canon_samples()
{
	awk '{
		at = 0
		for (i = 1; i <= NF; i++) if ($i == "@") { at = i; break }
		k = ""; for (i = at; i <= NF; i++) k = k " " $i
		if (!(k in nv)) { nv[k] = at - 1; order[++no] = k }
		for (i = 1; i < at; i++) sum[k, i] += $i
	}
	END {
		for (o = 1; o <= no; o++) {
			k = order[o]; line = ""; nz = 0
			for (i = 1; i <= nv[k]; i++) { line = line (i > 1 ? " " : "") sum[k, i]; if (sum[k, i] != 0) nz = 1 }
			if (nz) print line k
		}
	}' | LC_ALL=C sort
}

# sp_same_samples WHAT ORIGINAL OURS.pb.gz [GO-OPTIONS...]: go tool pprof -raw of
# symprof's output agrees sample by sample (values and addresses) with go tool pprof
# -raw -symbolize=none of the original file.  Two TAP cases.
sp_same_samples()
{
	sp_what=$1
	sp_orig=$2
	sp_ours=$3
	shift 3
	sp_gopprof -raw -symbolize=none "$@" "$sp_orig" >"$tmp/go_orig.raw" 2>"$tmp/err" &&
		sp_gopprof -raw -symbolize=none "$@" "$sp_ours" >"$tmp/go_ours.raw" 2>>"$tmp/err"
	sp_ok $? "$sp_what: go tool pprof -raw reads the original and symprof's pprof" ||
		{ sp_show_err; return 1; }
	sp_raw_samples <"$tmp/go_orig.raw" >"$tmp/go_orig.samples"
	sp_raw_samples <"$tmp/go_ours.raw" >"$tmp/go_ours.samples"
	[ -s "$tmp/go_orig.samples" ] && cmp -s "$tmp/go_orig.samples" "$tmp/go_ours.samples"
	sp_ok $? "$sp_what: same samples (values @ addresses) as go tool pprof reads" ||
		diff "$tmp/go_orig.samples" "$tmp/go_ours.samples" | head -n 20 | sed 's/^/#   /'
}
