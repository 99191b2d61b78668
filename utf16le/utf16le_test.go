package utf16le

import (
	"testing"
	"unicode/utf16"
)

// TestAppendDecode checks that decoding several strings into one buffer
// gives each string as Decode does (unicode/utf16 is the reference).
func TestAppendDecode(t *testing.T) {
	texts := []string{"", "Processor", "% Processor Time", "Ärger", "日本語", "😀 emoji", "a\u00ffb"}
	var buf []byte
	var bounds []int
	for _, s := range texts {
		var enc []byte
		for _, u := range utf16.Encode([]rune(s)) {
			enc = append(enc, byte(u), byte(u>>8))
		}
		buf = AppendDecode(buf, enc)
		bounds = append(bounds, len(buf))
	}
	// An unpaired surrogate and an odd trailing byte.
	buf = AppendDecode(buf, []byte{0x00, 0xD8, 'x', 0, 7})
	all := string(buf)
	start := 0
	for i, s := range texts {
		if got := all[start:bounds[i]]; got != s {
			t.Errorf("string %d: %q, want %q", i, got, s)
		}
		start = bounds[i]
	}
	if got, want := all[start:], "\uFFFDx"; got != want {
		t.Errorf("unpaired surrogate and odd byte: %q, want %q", got, want)
	}
}
