package utf16le

import (
	"strings"
	"testing"
	"unicode/utf16"
)

// le and be encode s as UTF-16 in either byte order, with the standard
// library's encoder (independent of Text).
func le(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

func be(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u>>8), byte(u))
	}
	return b
}

func TestText(t *testing.T) {
	const s = "\\Processor(_Total)\\% Processor Time\n\\Disco físico(0 C:)\\😀"
	for _, tc := range []struct {
		name string
		in   []byte
		want string
		err  string
	}{
		{"utf-8", []byte(s), s, ""},
		{"utf-8 with a mark", append([]byte{0xEF, 0xBB, 0xBF}, s...), s, ""},
		{"utf-16le with a mark", append([]byte{0xFF, 0xFE}, le(s)...), s, ""},
		{"utf-16be with a mark", append([]byte{0xFE, 0xFF}, be(s)...), s, ""},
		{"utf-16le without a mark", le("<x>é</x>"), "<x>é</x>", ""},
		{"utf-16be without a mark", be("<x>é</x>"), "<x>é</x>", ""},
		{"empty", nil, "", ""},
		{"surrogate pair kept", append([]byte{0xFF, 0xFE}, le("a😀b")...), "a😀b", ""},
		{"odd length", []byte{0xFF, 0xFE, 'a', 0, 'b'}, "", "odd"},
		{"lone high surrogate at the end", []byte{0xFF, 0xFE, 'a', 0, 0x3D, 0xD8}, "", "byte 4"},
		{"high surrogate then a letter", []byte{0xFF, 0xFE, 0x3D, 0xD8, 'a', 0}, "", "byte 2"},
		{"lone low surrogate", []byte{0xFF, 0xFE, 'a', 0, 0x00, 0xDE}, "", "byte 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Text(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Text = %q, %v; want an error with %q", got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Text = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func FuzzText(f *testing.F) {
	f.Add([]byte{0xFF, 0xFE, 'a', 0})
	f.Add([]byte("plain"))
	f.Add(be("<x/>"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Text(b)
		if err != nil {
			return
		}
		// Whatever decoded from UTF-16 is valid UTF-8 and encodes back
		// to the same units.
		if len(b) >= 2 && (b[0] == 0xFF && b[1] == 0xFE) {
			if got := le(s); string(got) != string(b[2:]) {
				t.Fatalf("%x decodes to %q, which encodes to %x", b, s, got)
			}
		}
	})
}
