package termtext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"plain text", "plain text"},
		{`\\host\Process(x)\% Processor Time`, `\\host\Process(x)\% Processor Time`},
		{"naïve 日本語 😀", "naïve 日本語 😀"},
		{"a\nb", `a\nb`},
		{"a\r\n\tb", `a\r\n\tb`},
		{"\x1b[2J\x1b]0;title\x07", `\x1b[2J\x1b]0;title\x07`},
		{"del\x7f", `del\x7f`},
		{"c1 \u009b31m", `c1 \x9b31m`},
		{"bad \xff\xfe utf-8", `bad \xff\xfe utf-8`},
		{"cut \xe6\x97", `cut \xe6\x97`},
		{"ok \ufffd kept", "ok \ufffd kept"},
		{"rtl \u202eevil\u202c", `rtl \u202eevil\u202c`},
		{"iso \u2066x\u2069", `iso \u2066x\u2069`},
		{"line\u2028sep", `line\u2028sep`},
	} {
		got := Escape(tc.in)
		if got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if strings.ContainsFunc(got, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) }) || !utf8.ValidString(got) {
			t.Errorf("Escape(%q) = %q still holds controls or invalid UTF-8", tc.in, got)
		}
	}
}
