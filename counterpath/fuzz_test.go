package counterpath

import (
	"testing"
)

// FuzzParseString checks that Parse and String are inverses in both
// directions: a parsed path re-parses from its canonical form to the same
// Path, and any valid Path built from arbitrary names survives String and
// Parse unchanged.
func FuzzParseString(f *testing.F) {
	for _, s := range []string{
		`\Processor(_Total)\% Processor Time`,
		`\\db7\Memory\Available Bytes`,
		`\Thread(chrome/3#1)\% Processor Time`,
		`\Process(svchost#12)\Working Set`,
		`\LogicalDisk(C:)\% Free Space`,
		`\Network Interface(Intel[R] PRO_1000)\Bytes Total/sec`,
		`\Process(*)\*`,
		`\LogicalDisk(*/*#*)\*`,
		`\Process(kworker%2F0:1)\% Processor Time`,
		`\Process(%28sd-pam%29)\Working Set`,
		`\Processor(_Total\% Processor Time`,
		`\\m\Process(setup(2))\ID Process`,
		`\Thread(x(1)/3#2)\x`,
	} {
		f.Add(s, "kworker/0:1", "(sd-pam)#1", 3, true)
	}
	f.Add(`\LogicalDisk(/home)\% Free Space`, "", "/mnt/a#(b)", 0, false)
	f.Add(`\LogicalDisk(/)\x`, "p", "/x/y", 1, true)
	f.Add(`\x`, "", "a\\b%25", -1, true)
	f.Add(`\\m\o\c`, "p#/", "\xff\x00", 0, false)

	f.Fuzz(func(t *testing.T, s, parent, instance string, index int, hasIndex bool) {
		// Direction 1: whatever parses is stable under String.
		if p, err := Parse(s); err == nil {
			if err := p.Validate(); err != nil {
				t.Fatalf("Parse(%q) = %#v, invalid: %v", s, p, err)
			}
			c := p.String()
			q, err := Parse(c)
			if err != nil {
				t.Fatalf("Parse(%q) ok, but Parse(String = %q): %v", s, c, err)
			}
			if q != p {
				t.Fatalf("Parse(String(Parse(%q))) = %#v, want %#v", s, q, p)
			}
			if q.String() != c {
				t.Fatalf("canonical form not stable: %q then %q", c, q.String())
			}
		}

		// ParseWindows reads what Parse reads alike, and whatever it reads
		// is a valid path that String writes and Parse reads back.
		if w, err := ParseWindows(s); err == nil {
			if p, perr := Parse(s); perr == nil && p != w {
				t.Fatalf("ParseWindows(%q) = %#v, Parse = %#v", s, w, p)
			}
			if err := w.Validate(); err != nil {
				t.Fatalf("ParseWindows(%q) = %#v, invalid: %v", s, w, err)
			}
			if q, err := Parse(w.String()); err != nil || q != w {
				t.Fatalf("ParseWindows(%q) = %#v; Parse(String) = %#v, %v", s, w, q, err)
			}
		} else if _, perr := Parse(s); perr == nil {
			t.Fatalf("Parse(%q) ok, ParseWindows: %v", s, err)
		}

		// Direction 2: any instance and parent name round-trips.
		if instance == "" {
			return
		}
		p := Path{Machine: "host", Object: "Process", Parent: parent, Instance: instance, Counter: "% Processor Time"}
		if hasIndex {
			p.HasIndex = true
			p.Index = index & 0x7fffffff
			if index < 0 && index%7 == 0 {
				p.Index = AnyIndex
			}
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("Validate(%#v): %v", p, err)
		}
		s2 := p.String()
		q, err := Parse(s2)
		if err != nil {
			t.Fatalf("Parse(String(%#v) = %q): %v", p, s2, err)
		}
		if q != p {
			t.Fatalf("Parse(%q) = %#v, want %#v", s2, q, p)
		}
		// Any computer, object and counter name round-trips too.
		if s != "" {
			o := Path{Machine: parent, Object: instance, Counter: s}
			if q, err := Parse(o.String()); err != nil || q != o {
				t.Fatalf("Parse(%q) = %#v, %v; want %#v", o.String(), q, err, o)
			}
		}
		if u, err := UnescapeInstance(EscapeInstance(instance)); err != nil || u != instance {
			t.Fatalf("UnescapeInstance(EscapeInstance(%q)) = %q, %v", instance, u, err)
		}
	})
}
