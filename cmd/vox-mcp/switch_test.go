package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// TestSwitchedOff: only "off" turns a protection off; a typo keeps it on
// and says so.
func TestSwitchedOff(t *testing.T) {
	for _, c := range []struct {
		value string
		off   bool
		warns bool
	}{
		{"", false, false},
		{"on", false, false},
		{" OFF ", true, false},
		{"off", true, false},
		{"of", false, true},
		{"0", false, true},
		{"false", false, true},
	} {
		t.Setenv("VOX_TEST_SWITCH", c.value)
		var log bytes.Buffer
		off := switchedOff(slog.New(slog.NewTextHandler(&log, nil)), "VOX_TEST_SWITCH", "the thing stays on")
		if off != c.off {
			t.Errorf("%q: off = %v, want %v", c.value, off, c.off)
		}
		if warned := strings.Contains(log.String(), "VOX_TEST_SWITCH has an unrecognised value; the thing stays on"); warned != c.warns {
			t.Errorf("%q: warned = %v, want %v (log %q)", c.value, warned, c.warns, log.String())
		}
	}
}
