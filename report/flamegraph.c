/* flamegraph.c — a self-contained interactive flame graph (SVG + script).
 *
 * The stacks are those of the folded output: root first, each location's
 * inline frames expanded (outermost first), unsymbolized frames as their
 * address.  Frames carry the annotations of the folded output
 * (sp_frame_annotation: "_[i]" inlined, "_[k]" kernel, "_[j]" JIT code)
 * and "_[u]" for an unresolved frame (drawn as its address); the suffix is
 * not displayed.  Colours follow flamegraph.pl's palettes (sp_flame_colors):
 * the default "java" one picks the hue by the suffix (aqua, green, violet,
 * grey; other frames warm, never the kernel's hue) and draws a legend of them; "hot", "mem" and
 * "io" colour every frame alike.  Within its hue a frame's colour comes
 * from a hash of its name, so the same input gives the same bytes.
 * Stacks are merged into a tree whose root "all" is drawn at the bottom
 * (at the top with inverted); with reverse the stacks are read leaf first,
 * so frames merge by leaf.  Siblings are sorted by name; frames narrower
 * than the minimum width (default 0.1% of the total) are left out.  The
 * title defaults to "SAMPLE_TYPE (UNIT)"; the tooltip gives each frame's
 * value in the unit (the --unit one when given) and its share.  Each frame is
 *
 *   <g class="f" data-s="START" data-v="VALUE" data-d="DEPTH">
 *     <title>main (90 samples, 90.00%)</title><rect .../><text ...>main</text></g>
 *
 * A difference that kept its base's samples (sp_profile_diff with
 * keep_base: labelled pprof::base=true) is drawn as a differential flame
 * graph: widths are the newer profile's, each frame's colour its change
 * (after − before of its cumulative value): red where it grew, blue where
 * it shrank, deeper the larger the change relative to the largest one,
 * grey when unchanged; the title gives both values and the change, and a
 * legend says so.  Stacks only in the base have no width and are not drawn.
 *
 * The embedded script shows the hovered frame, zooms on click (the
 * "Reset Zoom" button or a click on "all" goes back), and searches by
 * regular expression (Ctrl-F or the "Search" button), highlighting matches
 * and showing the share of the total they cover.  The fragments
 * "#zoom=NAME" and "#search=REGEX" apply the same actions on load.
 */
#include "report/reportp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FG_WIDTH 1200
#define FG_FRAME 16
#define FG_FONT 12
#define FG_XPAD 10
#define FG_TOP 60
#define FG_BOTTOM 34
#define FG_SUBTITLE 20 /* what a subtitle adds above the legend and frames */
/* Frames drawn above the root at most: a deeper stack (a runaway
 * recursion, a 35M-frame folded line) ends in one frame saying so,
 * rather than an image millions of frames high that no viewer opens
 * and a tree that does not fit in memory. */
#define FG_MAX_DEPTH 4096
#define FG_DEEPER "[deeper frames not drawn]"

typedef struct {
	size_t name; /* index into ftree.names */
	int64_t value;
	int64_t before; /* differential: the base's value */
	size_t depth;
	int64_t start;
	size_t first; /* the first stack (in sample order) through this frame */
} fnode;

/* The frames drawn, and the names.  Only frames wide enough to be drawn
 * are kept: a frame narrower than the minimum has no drawn descendant
 * either, so the tree is built top-down over the distinct stacks, sorted
 * by their frames' names, and a narrow frame's stacks are never looked at
 * below it.  Memory follows the distinct stacks and their depth, not the
 * samples nor every distinct prefix. */
typedef struct {
	fnode *nodes;
	size_t n, cap;
	sp_strtab names; /* distinct frame names, with annotation suffix */
} ftree;

/* The index of NAME (consumed) in the name table. */
static size_t intern_name(ftree *t, char *name)
{
	size_t idx = sp_strtab_intern_str(&t->names, name);

	free(name);
	return idx;
}

/* Frame name of line LI of L with its annotation. */
static char *frame_name(const sp_profile *p, const sp_location *l, size_t li)
{
	char kind = sp_frame_annotation(p, l, li);
	char *base, *s;

	if (l->n_lines == 0) {
		base = sp_location_address_name(p, l);
	} else {
		const sp_function *f = sp_profile_function(p, l->lines[li].function_id);
		const char *name = f ? sp_profile_str(p, f->name) : "";

		base = sp_xstrdup(name[0] ? name : "<unknown>");
	}
	sp_report_clean_name(base);
	if (!kind && l->n_lines == 0)
		kind = 'u';
	if (!kind)
		return base;
	s = sp_xasprintf("%s_[%c]", base, kind);
	free(base);
	return s;
}

static char annotation(const char *name, size_t *shown_len)
{
	size_t n = strlen(name);

	*shown_len = n;
	if (n >= 4 && name[n - 4] == '_' && name[n - 3] == '[' && name[n - 1] == ']' &&
	    strchr("kjiwu", name[n - 2])) {
		*shown_len = n - 4;
		return name[n - 2];
	}
	return 0;
}

static void xml_escape(sp_sink *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '&': sp_sink_puts(out, "&amp;"); break;
		case '<': sp_sink_puts(out, "&lt;"); break;
		case '>': sp_sink_puts(out, "&gt;"); break;
		case '"': sp_sink_puts(out, "&quot;"); break;
		case '\'': sp_sink_puts(out, "&apos;"); break;
		default:
			/* Control characters are not allowed in XML. */
			sp_sink_putc(out, c < 0x20 || c == 0x7f ? '?' : (char)c);
		}
	}
}

/* The colour of a frame of KIND (0 for an ordinary one) in palette PAL,
 * V1..V3 in [0, 1] choosing it within its hue.  BUF holds 24 bytes. */
static void palette_color(sp_flame_colors pal, char kind, double v1, double v2, double v3,
			  char *buf)
{
	int r, g, b;

	if (pal == SP_FLAME_HOT)
		kind = 0;
	else if (pal == SP_FLAME_MEM)
		kind = 'm';
	else if (pal == SP_FLAME_IO)
		kind = 'o';
	switch (kind) {
	case 'k': /* violet: no ordinary (warm) frame can look like the kernel's */
		r = 150 + (int)(40 * v1), g = 110 + (int)(40 * v2), b = 215 + (int)(40 * v3);
		break;
	case 'j': /* green */
		r = (int)(60 * v1), g = 180 + (int)(60 * v2), b = (int)(60 * v3);
		break;
	case 'i': /* aqua */
		r = (int)(50 * v1), g = 190 + (int)(50 * v2), b = 190 + (int)(50 * v3);
		break;
	case 'u': /* grey */
		r = g = b = 160 + (int)(40 * v1);
		break;
	case 'm': /* green to blue */
		r = 0, g = 190 + (int)(50 * v2), b = (int)(210 * v1);
		break;
	case 'o': /* blue */
		r = g = 80 + (int)(60 * v1), b = 190 + (int)(55 * v2);
		break;
	default: /* warm */
		r = 205 + (int)(50 * v3), g = (int)(230 * v1), b = (int)(55 * v2);
	}
	snprintf(buf, 24, "rgb(%d,%d,%d)", r, g, b);
}

static void frame_color(const char *name, size_t len, char kind, sp_flame_colors pal, char *buf)
{
	uint64_t h = sp_hash_bytes(name, len, 11);

	palette_color(pal, kind, (double)(h & 0xff) / 255.0, (double)((h >> 8) & 0xff) / 255.0,
		      (double)((h >> 16) & 0xff) / 255.0, buf);
}

static const char script[] =
	"<script type=\"text/ecmascript\"><![CDATA[\n"
	"'use strict';\n"
	"var W = 0, XPAD = 0, FONT = 0, SEARCH = '', frames = [], details, matched, resetBtn,\n"
	"    root, searching = false;\n"
	"function num(e, a) { return parseFloat(e.getAttribute(a)); }\n"
	"function nameOf(g) { return g.getAttribute('data-n'); }\n"
	"function fit(g, w) {\n"
	"  var t = g.querySelector('text'), n = nameOf(g), fitc = Math.floor((w - 6) / (FONT * 0.59));\n"
	"  t.setAttribute('x', num(g.querySelector('rect'), 'x') + 3);\n"
	"  if (fitc < 3) { t.textContent = ''; return; }\n"
	"  t.textContent = n.length <= fitc ? n : n.substring(0, fitc - 2) + '..';\n"
	"}\n"
	"function place(g, x, w) {\n"
	"  var r = g.querySelector('rect');\n"
	"  r.setAttribute('x', x); r.setAttribute('width', w); fit(g, w);\n"
	"}\n"
	"function zoom(z) {\n"
	"  var zs = num(z, 'data-s'), zv = num(z, 'data-v'), zd = num(z, 'data-d'), i;\n"
	"  for (i = 0; i < frames.length; i++) {\n"
	"    var g = frames[i], s = num(g, 'data-s'), v = num(g, 'data-v'), d = num(g, 'data-d');\n"
	"    g.classList.remove('parent'); g.classList.remove('hide'); g.classList.remove('zoomed');\n"
	"    if (d < zd && s <= zs && s + v >= zs + zv) {\n"
	"      g.classList.add('parent'); place(g, XPAD, W);\n"
	"    } else if (d >= zd && s >= zs && s + v <= zs + zv) {\n"
	"      var w = v / zv * W;\n"
	"      if (w < 0.1) g.classList.add('hide'); else place(g, XPAD + (s - zs) / zv * W, w);\n"
	"    } else {\n"
	"      g.classList.add('hide');\n"
	"    }\n"
	"  }\n"
	"  z.classList.add('zoomed');\n"
	"  resetBtn.classList.toggle('hide', z === root);\n"
	"  document.documentElement.setAttribute('data-zoom', nameOf(z));\n"
	"}\n"
	"function resetZoom() { zoom(root); }\n"
	"function clearSearch() {\n"
	"  for (var i = 0; i < frames.length; i++) {\n"
	"    var r = frames[i].querySelector('rect');\n"
	"    r.setAttribute('fill', r.getAttribute('data-fill'));\n"
	"  }\n"
	"  matched.textContent = ''; searching = false;\n"
	"}\n"
	"function search(term) {\n"
	"  var re, hits = [], i, total = num(root, 'data-v'), sum = 0, end = -1;\n"
	"  try { re = new RegExp(term); } catch (e) { return; }\n"
	"  clearSearch();\n"
	"  for (i = 0; i < frames.length; i++) {\n"
	"    if (re.test(nameOf(frames[i]))) {\n"
	"      frames[i].querySelector('rect').setAttribute('fill', SEARCH);\n"
	"      hits.push([num(frames[i], 'data-s'), num(frames[i], 'data-v')]);\n"
	"    }\n"
	"  }\n"
	"  hits.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });\n"
	"  for (i = 0; i < hits.length; i++) {\n"
	"    var s = hits[i][0], e = s + hits[i][1];\n"
	"    if (s >= end) { sum += e - s; end = e; }\n"
	"    else if (e > end) { sum += e - end; end = e; }\n"
	"  }\n"
	"  matched.textContent = 'Matched: ' + (total ? (100 * sum / total).toFixed(1) : '0') + '%';\n"
	"  searching = true;\n"
	"  document.documentElement.setAttribute('data-matched', matched.textContent);\n"
	"}\n"
	"function askSearch() {\n"
	"  if (searching) { clearSearch(); return; }\n"
	"  var term = prompt('Search for (regular expression):', '');\n"
	"  if (term) search(term);\n"
	"}\n"
	"function init() {\n"
	"  var svg = document.documentElement, i;\n"
	"  W = num(svg, 'data-w'); XPAD = num(svg, 'data-xpad'); FONT = num(svg, 'data-font');\n"
	"  SEARCH = svg.getAttribute('data-search-color');\n"
	"  details = document.getElementById('details');\n"
	"  matched = document.getElementById('matched');\n"
	"  resetBtn = document.getElementById('reset');\n"
	"  frames = Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
	"  root = frames[0];\n"
	"  for (i = 0; i < frames.length; i++) {\n"
	"    (function (g) {\n"
	"      g.addEventListener('mouseover', function () {\n"
	"        details.textContent = g.querySelector('title').textContent; });\n"
	"      g.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
	"      g.addEventListener('click', function () { zoom(g); });\n"
	"    })(frames[i]);\n"
	"  }\n"
	"  resetBtn.addEventListener('click', resetZoom);\n"
	"  document.getElementById('search').addEventListener('click', askSearch);\n"
	"  window.addEventListener('keydown', function (e) {\n"
	"    if ((e.ctrlKey || e.metaKey) && e.key === 'f') { e.preventDefault(); askSearch(); }\n"
	"    else if (e.key === 'Escape') { clearSearch(); resetZoom(); }\n"
	"  });\n"
	"  var h = decodeURIComponent(window.location.hash || '');\n"
	"  if (h.indexOf('#zoom=') === 0) {\n"
	"    for (i = 0; i < frames.length; i++)\n"
	"      if (nameOf(frames[i]) === h.substring(6)) { zoom(frames[i]); break; }\n"
	"  } else if (h.indexOf('#search=') === 0) {\n"
	"    search(h.substring(8));\n"
	"  }\n"
	"}\n"
	"window.addEventListener('load', init);\n"
	"]]></script>\n";

static const char *unit_word(const char *unit)
{
	if (!unit[0] || !strcmp(unit, "count"))
		return "samples";
	return unit;
}

/* What every frame of one graph is drawn with. */
typedef struct {
	const ftree *t;
	const sp_flame_options *fo;
	int64_t total;
	size_t max_depth;
	int width, frame, top; /* image width, frame height, y of the frames (px) */
	const char *from;      /* the recorded unit */
	const char *to;        /* the unit values are shown in; NULL: as recorded */
	const char *word;      /* said after a value */
	bool differential;
	int64_t max_change; /* differential: the largest |after - before| */
} fg_draw;

#define VALUE_TEXT_LEN 64

/* V as tooltips show it: as recorded, or in D->to with two decimals (".00"
 * dropped); SIGN: with a sign.  BUF holds VALUE_TEXT_LEN bytes. */
static const char *value_text(const fg_draw *d, int64_t v, bool sign, char *buf)
{
	const char *unit;
	size_t n;

	if (!d->to) {
		snprintf(buf, VALUE_TEXT_LEN, sign ? "%+lld" : "%lld", (long long)v);
		return buf;
	}
	snprintf(buf, VALUE_TEXT_LEN, sign ? "%+.2f" : "%.2f",
		 sp_report_scale(v, d->from, d->to, &unit));
	n = strlen(buf);
	if (n >= 3 && !strcmp(buf + n - 3, ".00"))
		buf[n - 3] = 0;
	return buf;
}

/* Whether node ND is wide enough to be drawn. */
static bool drawn(const fg_draw *d, const fnode *nd)
{
	double share;

	if (nd->value <= 0)
		return false;
	share = (double)nd->value / (double)d->total;
	switch (d->fo->minwidth_kind) {
	case SP_MINWIDTH_PX: return (double)(d->width - 2 * FG_XPAD) * share >= d->fo->minwidth;
	case SP_MINWIDTH_PERCENT: return 100.0 * share >= d->fo->minwidth;
	case SP_MINWIDTH_DEFAULT: break;
	}
	return nd->value >= (d->total + 999) / 1000;
}

#define DIFF_COLOR_LEN 40

/* Differential colour: red grew, blue shrank, intensity by |DELTA| / MAX.
 * BUF holds DIFF_COLOR_LEN bytes. */
static void diff_color(int64_t delta, int64_t max, char *buf)
{
	int c = 240;
	if (delta != 0 && max > 0)
		c = 225 - (int)(195.0 * ((double)(delta < 0 ? -delta : delta) / (double)max));
	if (delta > 0)
		snprintf(buf, DIFF_COLOR_LEN, "rgb(255,%d,%d)", c, c);
	else if (delta < 0)
		snprintf(buf, DIFF_COLOR_LEN, "rgb(%d,%d,255)", c, c);
	else
		snprintf(buf, DIFF_COLOR_LEN, "rgb(%d,%d,%d)", c, c, c);
}

static void write_frame(sp_sink *out, const fg_draw *d, size_t i)
{
	const fnode *nd = &d->t->nodes[i];
	const char *name = d->t->names.strs[nd->name];
	const double span = d->width - 2 * FG_XPAD;
	double x = FG_XPAD + span * (double)nd->start / (double)d->total;
	double w = span * (double)nd->value / (double)d->total;
	size_t row = d->fo->inverted ? nd->depth : d->max_depth - nd->depth;
	double y = d->top + (double)row * d->frame;
	size_t len, fitc;
	char kind = annotation(name, &len), color[DIFF_COLOR_LEN];
	char v1[VALUE_TEXT_LEN], v2[VALUE_TEXT_LEN], v3[VALUE_TEXT_LEN];

	if (d->differential)
		diff_color(nd->value - nd->before, d->max_change, color);
	else
		frame_color(name, len, kind, d->fo->colors, color);
	sp_sink_printf(out, "<g class=\"f\" data-s=\"%lld\" data-v=\"%lld\" data-d=\"%zu\" data-n=\"",
		       (long long)nd->start, (long long)nd->value, nd->depth);
	xml_escape(out, name, len);
	sp_sink_puts(out, "\"><title>");
	xml_escape(out, name, len);
	if (d->differential)
		sp_sink_printf(out, " (before %s, after %s ", value_text(d, nd->before, false, v1),
			       value_text(d, nd->value, false, v2));
	else
		sp_sink_printf(out, " (%s ", value_text(d, nd->value, false, v1));
	xml_escape(out, d->word, strlen(d->word));
	if (d->differential)
		sp_sink_printf(out, ", change %s)</title>",
			       value_text(d, nd->value - nd->before, true, v3));
	else
		sp_sink_printf(out, ", %.2f%%)</title>",
			       100.0 * (double)nd->value / (double)d->total);
	sp_sink_printf(out,
		       "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" "
		       "data-fill=\"%s\" rx=\"2\" ry=\"2\"/>",
		       x, y, w, d->frame - 1, color, color);
	sp_sink_printf(out, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + d->frame - 4.5);
	fitc = w > 6 ? (size_t)((w - 6) / (FG_FONT * 0.59)) : 0;
	if (fitc >= 3) {
		if (len <= fitc) {
			xml_escape(out, name, len);
		} else {
			xml_escape(out, name, fitc - 2);
			sp_sink_puts(out, "..");
		}
	}
	sp_sink_puts(out, "</text></g>\n");
}

/* The legend of a differential flame graph, under the title; Y is the top
 * of its swatches. */
static void write_legend(sp_sink *out, const fg_draw *d, int y)
{
	char grew[DIFF_COLOR_LEN], shrank[DIFF_COLOR_LEN], max[VALUE_TEXT_LEN];
	diff_color(1, 1, grew);
	diff_color(-1, 1, shrank);
	sp_sink_printf(out,
		       "<g id=\"legend\"><rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" "
		       "fill=\"%s\"/><text x=\"%d\" y=\"%d\">grew</text>"
		       "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
		       "<text x=\"%d\" y=\"%d\">shrank</text>"
		       "<text x=\"%d\" y=\"%d\">widths: after; colour: change, deepest at %s ",
		       FG_XPAD, y, grew, FG_XPAD + 16, y + 10, FG_XPAD + 60, y, shrank, FG_XPAD + 76,
		       y + 10, FG_XPAD + 136, y + 10, value_text(d, d->max_change, false, max));
	xml_escape(out, d->word, strlen(d->word));
	sp_sink_puts(out, "</text></g>\n");
}

/* The legend of the kind palette: a swatch per kind, under the title. */
static void write_kind_legend(sp_sink *out, int y)
{
	static const struct {
		char kind;
		const char *label;
	} kinds[] = {{'i', "inline"}, {'j', "JIT"}, {'k', "kernel"}, {'u', "unresolved"}};
	int x = FG_XPAD;

	sp_sink_puts(out, "<g id=\"kind-legend\">");
	for (size_t i = 0; i < SP_ARRAY_LEN(kinds); i++) {
		char color[24];

		palette_color(SP_FLAME_JAVA, kinds[i].kind, 0.5, 0.5, 0.5, color);
		sp_sink_printf(out,
			       "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			       "<text x=\"%d\" y=\"%d\">%s</text>",
			       x, y, color, x + 16, y + 10, kinds[i].label);
		x += 16 + (int)((double)strlen(kinds[i].label) * FG_FONT * 0.59) + 20;
	}
	sp_sink_puts(out, "</g>\n");
}

static void write_svg(sp_sink *out, fg_draw *d, const sp_report_options *o,
		      const char *sample_type)
{
	const sp_flame_options *fo = d->fo;
	const char *search = fo->search_color ? fo->search_color : "rgb(230,0,230)";
	const char *unit = d->to ? d->to : d->from[0] ? d->from : "count";
	int hdr = fo->subtitle ? FG_SUBTITLE : 0;
	size_t height;
	/* a perf event's name without its modifiers (cpu-clock:pppH) */
	size_t st_len = strlen(sample_type);
	const char *colon = strrchr(sample_type, ':');
	if (colon && colon[1] && strspn(colon + 1, "ukhIGHpPSDWe") == strlen(colon + 1))
		st_len = (size_t)(colon - sample_type);
	char *title = o->title && o->title[0] ? sp_xstrdup(o->title)
		      : d->differential ? sp_xasprintf("Differential: %.*s (%s)", (int)st_len,
						       sample_type, unit)
					: sp_xasprintf("%.*s (%s)", (int)st_len, sample_type, unit);

	for (size_t i = 0; i < d->t->n; i++) {
		const fnode *nd = &d->t->nodes[i];
		int64_t change = nd->value - nd->before;
		if (!drawn(d, nd))
			continue;
		if (nd->depth > d->max_depth)
			d->max_depth = nd->depth;
		if ((change < 0 ? -change : change) > d->max_change)
			d->max_change = change < 0 ? -change : change;
	}
	d->top = FG_TOP + hdr;
	height = (size_t)d->top + (d->max_depth + 1) * (size_t)d->frame + FG_BOTTOM;
	sp_sink_puts(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n");
	sp_sink_printf(out,
		       "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		       "height=\"%zu\" viewBox=\"0 0 %d %zu\" data-w=\"%d\" data-xpad=\"%d\" "
		       "data-font=\"%d\" data-search-color=\"",
		       d->width, height, d->width, height, d->width - 2 * FG_XPAD, FG_XPAD, FG_FONT);
	xml_escape(out, search, strlen(search));
	sp_sink_puts(out, "\">\n");
	sp_sink_printf(out,
		       "<style type=\"text/css\">\n"
		       "text { font-family: Verdana, sans-serif; font-size: %dpx; fill: #000; }\n"
		       "g.f text { pointer-events: none; }\n"
		       "g.f:hover rect { stroke: #000; stroke-width: 0.5; cursor: pointer; }\n"
		       ".parent { opacity: 0.5; }\n"
		       ".hide { display: none; }\n"
		       "#title { font-size: 17px; text-anchor: middle; }\n"
		       "#subtitle { text-anchor: middle; fill: #555; }\n"
		       "#search, #reset { cursor: pointer; }\n"
		       "</style>\n",
		       FG_FONT);
	sp_sink_puts(out, script);
	sp_sink_printf(out,
		       "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%zu\" fill=\"#f4f4ee\"/>\n",
		       d->width, height);
	sp_sink_printf(out, "<text id=\"title\" x=\"%d\" y=\"24\">", d->width / 2);
	xml_escape(out, title, strlen(title));
	sp_sink_puts(out, "</text>\n");
	free(title);
	if (fo->subtitle) {
		sp_sink_printf(out, "<text id=\"subtitle\" x=\"%d\" y=\"%d\">", d->width / 2,
			       24 + FG_SUBTITLE);
		xml_escape(out, fo->subtitle, strlen(fo->subtitle));
		sp_sink_puts(out, "</text>\n");
	}
	sp_sink_printf(out, "<text id=\"reset\" class=\"hide\" x=\"%d\" y=\"24\">Reset Zoom</text>\n",
		       FG_XPAD);
	sp_sink_printf(out, "<text id=\"search\" x=\"%d\" y=\"24\" text-anchor=\"end\">Search</text>\n",
		       d->width - FG_XPAD);
	sp_sink_printf(out, "<text id=\"details\" x=\"%d\" y=\"%zu\"> </text>\n", FG_XPAD,
		       height - 12);
	sp_sink_printf(out, "<text id=\"matched\" x=\"%d\" y=\"%zu\" text-anchor=\"end\"></text>\n",
		       d->width - FG_XPAD, height - 12);
	if (d->differential)
		write_legend(out, d, 36 + hdr);
	else if (fo->colors == SP_FLAME_JAVA)
		write_kind_legend(out, 36 + hdr);
	/* Parents before children, so the root is the first frame. */
	for (size_t i = 0; i < d->t->n; i++)
		if (drawn(d, &d->t->nodes[i]))
			write_frame(out, d, i);
	sp_sink_puts(out, "</svg>\n");
}

/* The interned names of every location's frames: location I's are
 * names[off[I]..off[I+1]), innermost first as in its lines. */
typedef struct {
	size_t *off, *names;
	size_t n, cap;
} loc_names;

static void name_locations(ftree *t, const sp_profile *p, loc_names *ln)
{
	ln->off = sp_xcalloc(p->n_locations + 1, sizeof(size_t));
	for (size_t i = 0; i < p->n_locations; i++) {
		const sp_location *l = &p->locations[i];
		size_t nl = l->n_lines ? l->n_lines : 1;

		ln->off[i] = ln->n;
		for (size_t li = 0; li < nl; li++)
			SP_PUSH(ln->names, ln->n, ln->cap, intern_name(t, frame_name(p, l, li)));
	}
	ln->off[p->n_locations] = ln->n;
}

/* The distinct stacks of the kept samples, in the order they first
 * appear: each one's summed values and its frame names (root first, leaf
 * first when reversed; a stack deeper than FG_MAX_DEPTH ends in the frame
 * DEEPER) at names[off..off+len). */
typedef struct {
	size_t sample; /* the first sample with these locations */
	int64_t value, before;
	size_t off, len;
} fstack;

typedef struct {
	const sp_profile *p;
	const loc_names *ln;
	bool reverse;
	size_t deeper;
	fstack *stacks;
	size_t n, cap;
	sp_idxset set;
	uint32_t *names; /* name indexes of every stack's frames */
	size_t n_names, cap_names;
	uint32_t *rank; /* a name's place in strcmp order */
	size_t *order;	/* stacks sorted by their frames' ranks */
} fstacks;

typedef struct {
	const sp_profile *p;
	const fstack *stacks;
	const sp_sample *key;
} fstack_key;

static bool fstack_eq(void *ctx, size_t i)
{
	const fstack_key *k = ctx;
	const sp_sample *s = &k->p->samples[k->stacks[i].sample];

	return s->n_locations == k->key->n_locations &&
	       (!s->n_locations || !memcmp(s->location_ids, k->key->location_ids,
					   s->n_locations * sizeof(*s->location_ids)));
}

/* Appends the frame names of sample S's stack to SS->names. */
static void stack_names(fstacks *ss, const sp_sample *s)
{
	const loc_names *ln = ss->ln;
	size_t depth = 0;

	/* locations are leaf first, their lines innermost first */
	for (size_t n = 0; n < s->n_locations; n++) {
		size_t k = ss->reverse ? n : s->n_locations - 1 - n;
		const sp_location *l = sp_profile_location(ss->p, s->location_ids[k]);

		if (!l)
			continue;
		size_t li = (size_t)(l - ss->p->locations);
		size_t nl = ln->off[li + 1] - ln->off[li];
		for (size_t m = 0; m < nl; m++) {
			size_t j = ln->off[li] + (ss->reverse ? m : nl - 1 - m);
			bool cut = ++depth >= FG_MAX_DEPTH;

			SP_PUSH(ss->names, ss->n_names, ss->cap_names,
				(uint32_t)(cut ? ss->deeper : ln->names[j]));
			if (cut)
				return;
		}
	}
}

/* Adds W of sample I (to the base side when BEFORE) to its stack. */
static void add_stack(fstacks *ss, size_t i, int64_t w, bool before)
{
	const sp_sample *s = &ss->p->samples[i];
	uint64_t h = sp_hash_bytes(s->location_ids, s->n_locations * sizeof(*s->location_ids), 0);
	fstack_key key = {ss->p, ss->stacks, s};
	size_t k = sp_idxset_find(&ss->set, h, fstack_eq, &key);

	if (k == SIZE_MAX) {
		fstack st = {.sample = i, .off = ss->n_names};

		stack_names(ss, s);
		st.len = ss->n_names - st.off;
		SP_PUSH(ss->stacks, ss->n, ss->cap, st);
		k = ss->n - 1;
		sp_idxset_add(&ss->set, h, k);
	}
	/* no overflow: every sum is part of the root's, checked first */
	if (before)
		ss->stacks[k].before += w;
	else
		ss->stacks[k].value += w;
}

static int cmp_names(const void *x, const void *y, void *arg)
{
	const sp_strtab *names = arg;

	return strcmp(names->strs[*(const uint32_t *)x], names->strs[*(const uint32_t *)y]);
}

/* Stacks by their frames' names, frame by frame; a prefix first. */
static int cmp_stacks(const void *x, const void *y, void *arg)
{
	const fstacks *ss = arg;
	const fstack *a = &ss->stacks[*(const size_t *)x], *b = &ss->stacks[*(const size_t *)y];
	size_t m = a->len < b->len ? a->len : b->len;

	for (size_t i = 0; i < m; i++) {
		uint32_t ra = ss->rank[ss->names[a->off + i]], rb = ss->rank[ss->names[b->off + i]];
		if (ra != rb)
			return ra < rb ? -1 : 1;
	}
	return (a->len > b->len) - (a->len < b->len);
}

/* Ranks the names and sorts the stacks by them. */
static void sort_stacks(fstacks *ss, const sp_strtab *names)
{
	uint32_t *by_name = sp_xcalloc(names->n ? names->n : 1, sizeof(*by_name));

	for (size_t i = 0; i < names->n; i++)
		by_name[i] = (uint32_t)i;
	/* names are distinct, so the order is total */
	qsort_r(by_name, names->n, sizeof(*by_name), cmp_names, (void *)names);
	ss->rank = sp_xcalloc(names->n ? names->n : 1, sizeof(*ss->rank));
	for (size_t i = 0; i < names->n; i++)
		ss->rank[by_name[i]] = (uint32_t)i;
	free(by_name);
	ss->order = sp_xcalloc(ss->n ? ss->n : 1, sizeof(*ss->order));
	for (size_t i = 0; i < ss->n; i++)
		ss->order[i] = i;
	qsort_r(ss->order, ss->n, sizeof(*ss->order), cmp_stacks, ss);
}

/* The children of node PARENT, made of the sorted stacks [LO, HI), which
 * all have the parent's DEPTH frames in common: one child per name at
 * DEPTH, laid out side by side in name order from the parent's start, kept
 * (and its own children made) only when drawn.  Recursion is bounded by
 * FG_MAX_DEPTH. */
static void add_children(ftree *t, const fg_draw *d, const fstacks *ss, size_t parent, size_t lo,
			 size_t hi, size_t depth)
{
	int64_t x = t->nodes[parent].start;

	while (lo < hi && ss->stacks[ss->order[lo]].len == depth)
		lo++;
	while (lo < hi) {
		const fstack *st = &ss->stacks[ss->order[lo]];
		uint32_t name = ss->names[st->off + depth];
		fnode c = {.name = name, .depth = depth + 1, .start = x, .first = SIZE_MAX};
		size_t end = lo;

		for (; end < hi; end++) {
			size_t k = ss->order[end];

			st = &ss->stacks[k];
			if (ss->names[st->off + depth] != name)
				break;
			c.value += st->value;
			c.before += st->before;
			if (k < c.first)
				c.first = k;
		}
		x += c.value;
		if (drawn(d, &c)) {
			SP_PUSH(t->nodes, t->n, t->cap, c);
			add_children(t, d, ss, t->n - 1, lo, end, depth + 1);
		}
		lo = end;
	}
}

/* Frames in the order the stacks first reach them, parents first. */
static int cmp_first(const void *x, const void *y)
{
	const fnode *a = x, *b = y;

	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	return (a->depth > b->depth) - (a->depth < b->depth);
}

/* Builds the drawn frames of the stacks SS into T and writes them as the
 * SVG of column SI of P. */
static void draw(ftree *t, fstacks *ss, const sp_profile *p, const sp_report_options *o,
		 size_t si, bool differential, sp_sink *out)
{
	fg_draw d = {
		.t = t,
		.fo = &o->flame,
		.total = t->nodes[0].value,
		.width = o->flame.width > 0 ? o->flame.width : FG_WIDTH,
		.frame = o->flame.frame_height > 0 ? o->flame.frame_height : FG_FRAME,
		.from = sp_profile_str(p, p->sample_types[si].unit),
		.differential = differential,
	};
	if (o->unit && o->unit[0]) {
		/* one unit for the whole graph ("auto": the total's) */
		const char *unit;
		sp_report_scale(d.total, d.from, o->unit, &unit);
		d.to = unit[0] ? unit : NULL;
	}
	d.word = o->flame.countname ? o->flame.countname
		 : d.to		    ? d.to
				    : unit_word(d.from);
	sort_stacks(ss, &t->names);
	if (drawn(&d, &t->nodes[0]))
		add_children(t, &d, ss, 0, 0, ss->n, 0);
	qsort(t->nodes + 1, t->n - 1, sizeof(*t->nodes), cmp_first);
	write_svg(out, &d, o, sp_profile_str(p, p->sample_types[si].type));
}

sp_error *sp_flamegraph_write(const sp_profile *p, const sp_report_options *o, sp_sink *out)
{
	sp_report_options def;
	sp_sample_filter *filter;
	sp_error *err;
	ftree t = {0};
	loc_names ln = {0};
	size_t si;

	if (!o) {
		sp_report_options_init(&def);
		o = &def;
	}
	si = o->sample_index;
	if ((err = sp_profile_check(p, "flame graph")))
		return err;
	if (si >= p->n_sample_types)
		return sp_error_new(SP_E_USAGE,
				    "flame graph: sample index %zu out of range (profile has %zu "
				    "sample types)",
				    si, p->n_sample_types);
	if ((err = sp_report_filter_new(p, o, &filter)))
		return err;
	name_locations(&t, p, &ln);
	SP_PUSH(t.nodes, t.n, t.cap, ((fnode){.name = intern_name(&t, sp_xstrdup("all"))}));
	fstacks ss = {.p = p, .ln = &ln, .reverse = o->flame.reverse,
		      .deeper = intern_name(&t, sp_xstrdup(FG_DEEPER))};
	bool differential = sp_profile_has_base(p);
	for (size_t i = 0; i < p->n_samples; i++) {
		const sp_sample *s = &p->samples[i];
		int64_t w = s->values[si];
		bool before = differential && sp_sample_is_base(p, s);

		/* Base samples are negated: their value is -w.  Widths cannot be
		 * negative: a difference without its base's samples is not drawn. */
		if (before)
			w = (int64_t)(0 - (uint64_t)w);
		if (w <= 0 || !sp_sample_filter_keep(filter, s))
			continue;
		/* every frame's width is part of the root's: if the total
		 * fits, so does every sum below it (profile.h: refuse) */
		if (__builtin_add_overflow(before ? t.nodes[0].before : t.nodes[0].value, w,
					   before ? &t.nodes[0].before : &t.nodes[0].value)) {
			err = sp_error_new(SP_E_LIMIT,
					   "flame graph: the %s values add up to more than an "
					   "int64 holds",
					   sp_profile_str(p, p->sample_types[si].type));
			break;
		}
		add_stack(&ss, i, w, before);
	}
	sp_idxset_free(&ss.set);
	free(ln.off);
	free(ln.names);
	sp_sample_filter_free(filter);
	if (!err)
		draw(&t, &ss, p, o, si, differential, out);
	free(ss.stacks);
	free(ss.names);
	free(ss.rank);
	free(ss.order);
	free(t.nodes);
	sp_strtab_free(&t.names);
	return err;
}
