package vox

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestLibraryAllocationBudget: every library function that builds a value
// in proportion to its input counts it against max_alloc_bytes, so a
// loop of calls each well under max_value_bytes fails at the budget
// rather than allocating without bound. Each expression builds about
// 10 KB or more from a 10,000-character string s (or the list xs of its
// characters, or the map m); 120 of them exceed a 1 MiB budget.
func TestLibraryAllocationBudget(t *testing.T) {
	for i, expr := range []string{
		`1`, // the control: the set-up alone fits the budget
		`format("{:>10000}", "x")`,
		`format("{}{}", s, s)`,
		`"x".pad_start(10000)`,
		`s.pad_end(20000, "-")`,
		`s.chars()`,
		`s.split("")`,
		`s.to_upper()`,
		`s.to_uppercase()`,
		`"é".repeat(5000).to_lowercase()`,
		`xs.zip(xs)`,
		`xs.enumerate()`,
		`m.items()`,
		`xs.flat_map(x => [x])`,
		`xs.flat_map(x => Some(x))`,
		`[xs, xs].flatten()`,
		`xs.reverse()`,
		`xs.slice_list(0)`,
		`xs.to_string()`,
		`m.to_str()`,
		`regex.find_all(s, ".")`,
		`regex.split(s, "")`,
		`regex.replace(s, "x", "yy")`,
		`regex.captures(s, "(.*)")`,
		`regex.escape(s)`,
		`json.parse(text)`,
		`json.stringify(xs)`,
		`json.encode(m)`,
		`json.render(xs)`,
		`json.pretty(xs)`,
		`json.quote(s)`,
		`json.read_str(text2, "k")`,
		`base64.encode(s)`,
		`base64.encode_url(s)`,
		`base64.decode(b64)`,
		`path.join(s, s)`,
		`path.join_many([s, s])`,
		`s.to_str() + ""`,
	} {
		src := `fn f() {
    let s = "x".repeat(10000)
    let xs = s.chars()
    let mut m = {}
    for c in xs.slice(0, 2000) { m[c + str(len(m))] = 1 }
    let text = json.stringify(xs)
    let text2 = json.stringify({k: s})
    let b64 = base64.encode(s)
    let mut i = 0
    while i < 120 {
        let r = ` + expr + `
        i += 1
    }
    1
}
`
		m := compileOK(t, src)
		_, err := m.Call(context.Background(), "f", nil, &Env{Limits: Limits{MaxAllocBytes: 1 << 20, Steps: 1 << 40}})
		if i == 0 {
			if err != nil {
				t.Fatalf("the set-up does not fit the budget: %v", err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Limit != "max_alloc_bytes" {
			t.Errorf("%s: want the max_alloc_bytes limit, got %v", expr, err)
			continue
		}
		if testing.Short() {
			continue
		}
		if _, err := m.Call(context.Background(), "f", nil, &Env{Limits: Limits{MaxAllocBytes: 1 << 40, Steps: 1 << 40}}); err != nil {
			t.Errorf("%s: within the budget: %v", expr, err)
		}
	}
}

// TestRegexWorkIsPriced: a match costs steps in proportion to the text
// times the pattern's size before it runs, so a large text and a large
// pattern fail at the step limit instead of holding the call inside
// Go's regexp beyond its timeout.
func TestRegexWorkIsPriced(t *testing.T) {
	m := compileOK(t, `fn f() {
    let s = "a".repeat(4000000)
    let p = "(a|b|c|d|e|f|g|h){1,40}z"
    regex.is_match(s, p)
}
`)
	_, err := m.Call(context.Background(), "f", nil, &Env{Limits: Limits{Steps: 100_000}})
	var e *Error
	if !errors.As(err, &e) || e.Limit != "steps" {
		t.Fatalf("want the steps limit, got %v", err)
	}
}

// TestRegexPatternBounds: a pattern longer than 32 KiB is refused by
// name; the compile cache stays bounded whatever number of patterns a
// call uses.
func TestRegexPatternBounds(t *testing.T) {
	m := compileOK(t, `fn long() { regex.is_match("a", "a".repeat(40000)) }
fn many() {
    let mut i = 0
    while i < 1000 {
        assert(regex.is_match("x" + str(i), "x" + str(i) + "$"))
        i += 1
    }
}
`)
	_, err := m.Call(context.Background(), "long", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "regex.is_match: the pattern is 40000 bytes long; at most 32768 are allowed") {
		t.Fatalf("long pattern: %v", err)
	}
	if _, err := m.Call(context.Background(), "many", nil, nil); err != nil {
		t.Fatal(err)
	}
}
