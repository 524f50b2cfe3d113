// flamegraph_dom.js — runs the flame graph's embedded script against a
// minimal stand-in for the browser DOM, built from the SVG text, and prints
// TAP.  Usage: node flamegraph_dom.js FLAME.svg
//
// The SVG is the one of tests/helpers/report_fixture.h (all 100%, main 100%,
// work 80%, helper 80%, leaf 60%, two 5% frames under main); the checks
// follow from the zoom and search rules documented in formats/flamegraph.c.
'use strict';
const fs = require('fs');
const svg = fs.readFileSync(process.argv[2], 'utf8');

function unescapeXml(s) {
	return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"')
		.replace(/&apos;/g, "'").replace(/&amp;/g, '&');
}

function attrsOf(text) {
	const a = {};
	const re = /([\w:-]+)="([^"]*)"/g;
	let m;
	while ((m = re.exec(text)))
		a[m[1]] = unescapeXml(m[2]);
	return a;
}

class El {
	constructor(tag, attrs, text) {
		this.tag = tag;
		this.attrs = attrs;
		this.textContent = text || '';
		this.children = [];
		this.listeners = {};
		const self = this;
		this.classList = {
			set() { return new Set((self.attrs['class'] || '').split(/\s+/).filter(Boolean)); },
			add(c) { const s = this.set(); s.add(c); self.attrs['class'] = [...s].join(' '); },
			remove(c) { const s = this.set(); s.delete(c); self.attrs['class'] = [...s].join(' '); },
			contains(c) { return this.set().has(c); },
			toggle(c, on) { if (on) this.add(c); else this.remove(c); },
		};
	}
	getAttribute(n) { return n in this.attrs ? this.attrs[n] : null; }
	setAttribute(n, v) { this.attrs[n] = String(v); }
	addEventListener(ev, fn) { (this.listeners[ev] = this.listeners[ev] || []).push(fn); }
	fire(ev, arg) { (this.listeners[ev] || []).forEach((fn) => fn(arg || {})); }
	querySelector(tag) { return this.children.find((c) => c.tag === tag) || null; }
}

// Frames: <g class="f" ...><title>..</title><rect .../><text ...>..</text></g>
const frames = [];
const gre = /<g class="f"([^>]*)><title>([^<]*)<\/title><rect([^>]*)\/><text([^>]*)>([^<]*)<\/text><\/g>/g;
let m;
while ((m = gre.exec(svg))) {
	const g = new El('g', Object.assign(attrsOf(m[1]), {class: 'f'}));
	g.children.push(new El('title', {}, unescapeXml(m[2])));
	g.children.push(new El('rect', attrsOf(m[3])));
	g.children.push(new El('text', attrsOf(m[4]), unescapeXml(m[5])));
	frames.push(g);
}
const ids = {};
const tre = /<text id="(\w+)"([^>]*)>([^<]*)<\/text>/g;
while ((m = tre.exec(svg)))
	ids[m[1]] = new El('text', Object.assign(attrsOf(m[2]), {id: m[1]}), m[3]);
const root = new El('svg', attrsOf(svg.match(/<svg([^>]*)>/)[1]));

const winListeners = {};
let promptAnswer = null;
const sandbox = {
	document: {
		documentElement: root,
		getElementById: (id) => ids[id] || null,
		querySelectorAll: (sel) => (sel === 'g.f' ? frames.slice() : []),
	},
	window: {
		location: {hash: ''},
		addEventListener: (ev, fn) => { (winListeners[ev] = winListeners[ev] || []).push(fn); },
	},
	prompt: () => promptAnswer,
};
const script = svg.match(/<!\[CDATA\[([\s\S]*?)\]\]>/)[1];
new Function('document', 'window', 'prompt', script)(sandbox.document, sandbox.window, sandbox.prompt);

let n = 0, failed = 0;
function ok(cond, what) {
	n++;
	if (!cond) failed++;
	console.log(`${cond ? 'ok' : 'not ok'} ${n} - ${what}`);
}
function frame(name) { return frames.find((g) => g.getAttribute('data-n') === name); }
function rect(name) { return frame(name).querySelector('rect'); }
function near(a, b) { return Math.abs(parseFloat(a) - b) < 0.01; }
function load(hash) {
	sandbox.window.location.hash = hash;
	(winListeners.load || []).forEach((fn) => fn());
}

ok(frames.length === 7 && Object.keys(ids).length >= 5, 'frames and controls found');
load('#zoom=work');
ok(root.getAttribute('data-zoom') === 'work', 'fragment #zoom=work zooms on work');
ok(near(rect('work').getAttribute('x'), 10) && near(rect('work').getAttribute('width'), 1180),
	'zoomed frame spans the width');
ok(near(rect('leaf').getAttribute('width'), 1180 * 60 / 80), 'children rescaled (leaf 60/80)');
ok(frame('main').classList.contains('parent') && frame('all').classList.contains('parent'),
	'ancestors marked as parents');
ok(frame('libfoo.so+0x1000').classList.contains('hide'), 'frames outside the zoom hidden');
ok(!ids.reset.classList.contains('hide'), 'reset button shown');
ok(frame('leaf').querySelector('text').textContent === 'leaf', 'labels refitted');

ids.reset.fire('click');
ok(root.getAttribute('data-zoom') === 'all' && near(rect('work').getAttribute('width'), 944) &&
	!frame('libfoo.so+0x1000').classList.contains('hide') &&
	ids.reset.classList.contains('hide'), 'reset zoom restores the whole graph');

frame('helper').fire('click');
ok(root.getAttribute('data-zoom') === 'helper' && near(rect('leaf').getAttribute('width'), 885),
	'click on a frame zooms on it');
frame('leaf').fire('mouseover');
ok(ids.details.textContent === 'leaf (60000000 nanoseconds, 60.00%)', 'hover shows the frame');

promptAnswer = 'leaf|helper';
ids.search.fire('click');
ok(ids.matched.textContent === 'Matched: 80.0%', 'search: nested matches counted once (80%)');
ok(rect('leaf').getAttribute('fill') === 'rgb(230,0,230)' &&
	rect('main').getAttribute('fill') !== 'rgb(230,0,230)', 'search highlights matches only');
ids.search.fire('click');
ok(ids.matched.textContent === '' && rect('leaf').getAttribute('fill') === rect('leaf').getAttribute('data-fill'),
	'second click clears the search');

load('#search=%5Ens%3A%3A|libfoo');
ok(ids.matched.textContent === 'Matched: 10.0%', 'fragment #search= runs a search');

console.log(`1..${n}`);
process.exit(failed ? 1 : 0);
