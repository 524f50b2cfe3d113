// The Go fixture of the stripped-binary tests: built twice at test time
// (with DWARF, and with -s -w), with the same build id, so that both have
// the same .text.  Small leaf functions are inlined into loops; the
// //go:noinline ones stay functions of their own.
package main

import (
	"fmt"
	"os"
	"strings"
)

type shape interface {
	area() float64
}

type rect struct{ w, h float64 }

func (r rect) area() float64 { return r.w * r.h }

func square(x int) int { return x * x }

func addSquares(a, b int) int { return square(a) + square(b) }

func clamp(x, lo, hi int) int {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

//go:noinline
func sumLoop(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += clamp(addSquares(i, i+1), 0, 1<<20)
	}
	return s
}

//go:noinline
func words(s string) int {
	n := 0
	for _, w := range strings.Fields(s) {
		if len(w) > 2 {
			n += square(len(w))
		}
	}
	return n
}

//go:noinline
func areas(shapes []shape) float64 {
	t := 0.0
	for _, s := range shapes {
		t += s.area()
	}
	return t
}

//go:noinline
func recurse(n int) int {
	if n <= 1 {
		return 1
	}
	return recurse(n-1) + clamp(n, 0, 10)
}

func main() {
	n := len(os.Args) + 1000
	shapes := []shape{rect{2, 3}, rect{4, 5}}
	fmt.Println(sumLoop(n), words("the quick brown fox jumps"), areas(shapes), recurse(n%50))
}
