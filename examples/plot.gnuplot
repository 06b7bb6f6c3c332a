# plot.gnuplot: memory of a mysqlmemprof CSV capture over time, as a PNG.
#
#   gnuplot -e "file='capture.csv'" examples/plot.gnuplot
#
# draws the thread total and the current bytes of the events that reached
# the most memory (current_bytes over elapsed_ms, one line per event), and
# marks with a cross each peak an event reached between two samples
# (unseen_peak_bytes), into capture.csv.png. A capture without such a peak
# makes gnuplot warn "Skipping data file with no valid points": harmless.
# Variables that may be set with -e, before the script:
#
#   file    the CSV written by mysqlmemprof --format=csv (required)
#   out     the PNG to write (default: file.png)
#   n       how many events to draw, largest peak first, counting the
#           peaks between samples (default: 5)
#   events  the events to draw instead, separated by spaces, e.g.
#           events='memory/sql/Filesort_buffer::sort_keys memory/innodb/row0sel'
#
# The columns used: 2 elapsed_ms, 3 timestamp, 5 event_name,
# 6 current_bytes, 13 total_bytes, 21 unseen_peak_bytes. Choosing the
# largest events needs awk(1), sort(1) and head(1); event names contain
# neither commas nor spaces. The statement column may span lines inside its
# quotes: only rows whose timestamp is in place are drawn, so its other
# lines are left alone.

if (!exists("file")) {
	print "usage: gnuplot -e \"file='capture.csv'\" plot.gnuplot"
	exit status 2
}
if (!exists("out")) out = file . ".png"
if (!exists("n")) n = 5

# The n events with the largest current_bytes or unseen_peak_bytes in any
# sample, largest first.
if (!exists("events")) {
	cmd = "awk -F, '$1 ~ /^[0-9]+$/ && $5 ~ /^\"memory\\// { gsub(/\"/, \"\", $5); " . \
	    "v = $21 + 0 > $6 + 0 ? $21 + 0 : $6 + 0; " . \
	    "if (!($5 in peak) || v > peak[$5]) peak[$5] = v } " . \
	    "END { for (e in peak) print peak[e], e }' '" . file . "'" . \
	    " | sort -rn | head -n " . n . " | cut -d' ' -f2"
	events = system(cmd)
}

set terminal pngcairo size 1200,700 noenhanced
set output out
set datafile separator ","
# A row of another event yields NaN: skip it, joining the line across it.
set datafile missing NaN
set title "mysqlmemprof: " . file
set xlabel "elapsed (s)"
set ylabel "current bytes"
set format y "%.1b %BB"
set grid
set key below

# Column 5 without its "memory/" prefix, for the key.
short(s) = s[1:7] eq "memory/" ? s[8:] : s
# A row of a sample, not a line of a statement that spans lines.
row(dummy) = strstrt(strcol(3), "T") == 11

plot file skip 1 using ($2 / 1000.0):(row(0) ? $13 : NaN) with lines lw 2 \
	lc "black" title "(thread total)", \
     file skip 1 using ($2 / 1000.0):(row(0) && valid(21) ? $21 : NaN) \
	with points pt 2 ps 2 lw 2 lc "black" title "peak between samples", \
     for [ev in events] file skip 1 \
	using ($2 / 1000.0):(strcol(5) eq ev ? $6 : NaN) \
	with linespoints lw 2 pt 7 ps 0.6 \
	title short(ev)
