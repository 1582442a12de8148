package toolcall

import (
	"encoding/json"
	"testing"
)

// TestDecoder reads every kind of argument the generated decoders use,
// and stops at the first error in the documented order.
func TestDecoder(t *testing.T) {
	var (
		s            string
		sp, np       *string
		i            int64
		ip           *int64
		f            float64
		fp           *float64
		b            bool
		bp           *bool
		list         []string
		files        map[string]string
		raw, rawNull json.RawMessage
		defaultLimit = Ptr(int64(7))
		str          = Rules{Types: []string{"string"}}
		enum         = Rules{Types: []string{"string"}, Enum: []string{`"a"`, `"b"`}}
		nullable     = Rules{Types: []string{"string", "null"}, Nullable: true}
		bounded      = Rules{Min: "1", Max: "10"}
		rawRules     = Rules{Types: []string{"integer", "string"}, Min: "0", MinLength: 2}
		extra        map[string]json.RawMessage
	)
	d := Decode(json.RawMessage(`{"s":"x","sp":"b","np":null,"i":3,"ip":4,"f":1.5,"fp":2,"b":true,"bp":false,"list":["p","q"],"files":{"a":"1"},"raw":"ok","rawNull":null,"more":1}`))
	d.Require("s", "i")
	d.String("s", &s, str)
	d.StringPtr("sp", &sp, enum)
	d.StringPtr("np", &np, nullable)
	d.Int("i", &i, bounded)
	d.IntPtr("ip", &ip, bounded)
	d.Float("f", &f, Rules{})
	d.FloatPtr("fp", &fp, Rules{})
	d.Bool("b", &b, Rules{})
	d.BoolPtr("bp", &bp, Rules{})
	d.Strings("list", &list, Rules{})
	d.Object("files", Rules{})
	d.Raw("raw", &raw, rawRules)
	d.Raw("rawNull", &rawNull, Rules{Types: []string{"string", "null"}, Nullable: true})
	d.IntPtr("absent", &defaultLimit, Rules{})
	d.StringMap("files", &files)
	extra = d.Extra("s", "sp", "np", "i", "ip", "f", "fp", "b", "bp", "list", "files", "raw", "rawNull")
	if err := d.Err(); err != nil {
		t.Fatal(err)
	}
	if s != "x" || *sp != "b" || np != nil || i != 3 || *ip != 4 || f != 1.5 || *fp != 2 || !b || *bp || len(list) != 2 ||
		files["a"] != "1" || string(raw) != `"ok"` || string(rawNull) != "null" || *defaultLimit != 7 || string(extra["more"]) != "1" {
		t.Errorf("decoded %q %v %v %d %d %v %v %v %v %q %v %s %s %d %v", s, sp, np, i, *ip, f, *fp, b, *bp, list, files, raw, rawNull, *defaultLimit, extra)
	}

	for args, want := range map[string]string{
		`{"s":"x","i":3,"sp":"c"}`:  `argument sp: want one of "a", "b", got "c"`,
		`{"s":"x","i":3,"sp":1}`:    "argument sp: want string, got integer",
		`{"s":"x","i":11}`:          "argument i: want at most 10, got 11",
		`{"s":"x","i":3,"raw":"a"}`: "argument raw: want at least 2 characters",
		`{"s":"x","i":3,"raw":-1}`:  "argument raw: want at least 0, got -1",
		`{"s":"x","i":3,"raw":[]}`:  "argument raw: want integer or string, got array",
		`{"s":"x","i":3,"b":"no"}`:  "argument b: want boolean, got string",
		`{"s":"x"}`:                 "missing argument: i",
		`{"s":"x","i":3,"z":0}`:     "unknown argument: z",
	} {
		d := Decode(json.RawMessage(args))
		d.Only("s", "sp", "i", "raw", "b")
		d.Require("s", "i")
		d.Bool("b", &b, Rules{})
		d.Int("i", &i, bounded)
		d.Raw("raw", &raw, rawRules)
		d.String("s", &s, str)
		d.StringPtr("sp", &sp, enum)
		if err := d.Err(); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", args, err, want)
		}
	}
}

func TestRawResult(t *testing.T) {
	for _, c := range []struct{ in, want string }{{"", "{}"}, {`{ "a" : 1 }`, `{"a":1}`}} {
		r := &RawResult{}
		if c.in != "" {
			r.JSON = json.RawMessage(c.in)
		}
		var e Encoder
		r.EncodeJSON(&e)
		if got, err := e.Bytes(); err != nil || string(got) != c.want {
			t.Errorf("%q: %s %v", c.in, got, err)
		}
	}
}
