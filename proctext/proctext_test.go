package proctext

import (
	"testing"
	"unicode/utf8"
)

func TestParseUint(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true},
		{"18446744073709551615", 1<<64 - 1, true},
		{"18446744073709551616", 0, false},
		{"", 0, false},
		{"12a", 0, false},
		{"-1", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := ParseUint([]byte(tt.in))
			if got != tt.want || ok != tt.ok {
				t.Errorf("ParseUint(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestCutName: a name is cut to at most n bytes without splitting a rune;
// the expectation is the longest prefix of whole runes, built rune by
// rune (bytes that are not UTF-8 count as one rune each).
func TestCutName(t *testing.T) {
	want := func(s string, n int) string {
		out := ""
		for i := 0; i < len(s); {
			_, w := utf8.DecodeRuneInString(s[i:])
			if len(out)+w > n {
				break
			}
			out += s[i : i+w]
			i += w
		}
		return out
	}
	for _, tc := range []struct {
		s string
		n int
	}{
		{"", 4}, {"abc", 3}, {"abcd", 3}, {"abc", 0}, {"abc", -1},
		{"aé", 2}, {"aé", 3}, {"a€", 2}, {"a€", 3}, {"a€", 4}, {"a😀", 2}, {"a😀", 4}, {"a😀", 5},
		{"ab\x80\x80\x80\x80", 3}, {"a\xffb", 2}, {"😀😀", 7}, {"é" + "\x80", 2}, {"a\xe2\x82b", 3}, {"a\xe2\x82", 2}, {"a\xf0\x9f\x98", 3},
	} {
		if got := CutName(tc.s, tc.n); got != want(tc.s, tc.n) {
			t.Errorf("CutName(%q, %d) = %q, want %q", tc.s, tc.n, got, want(tc.s, tc.n))
		}
		if got := string(CutName([]byte(tc.s), tc.n)); got != want(tc.s, tc.n) {
			t.Errorf("CutName([]byte(%q), %d) = %q, want %q", tc.s, tc.n, got, want(tc.s, tc.n))
		}
	}
}
