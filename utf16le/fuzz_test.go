package utf16le

import (
	"slices"
	"strings"
	"testing"
)

// FuzzDecodeMultiSZ: DecodeMultiSZ never panics on any bytes; a list it
// accepts encodes back to a list that decodes to the same strings; and any
// list of non-empty, NUL-free strings survives AppendMultiSZ then
// DecodeMultiSZ, each invalid UTF-8 byte becoming U+FFFD as in a Go
// []rune conversion. The committed corpus (testdata/fuzz/FuzzDecodeMultiSZ)
// holds a real title-list prefix and damaged lists.
func FuzzDecodeMultiSZ(f *testing.F) {
	f.Add([]byte{0, 0}, "2|System|4|Memory")
	f.Fuzz(func(t *testing.T, b []byte, joined string) {
		list, err := DecodeMultiSZ(b)
		if err == nil {
			enc, err := AppendMultiSZ(nil, list)
			if err != nil {
				t.Fatalf("AppendMultiSZ(DecodeMultiSZ(%x) = %q): %v", b, list, err)
			}
			again, err := DecodeMultiSZ(enc)
			if err != nil || !slices.Equal(again, list) {
				t.Fatalf("DecodeMultiSZ(AppendMultiSZ(%q)) = %q, %v", list, again, err)
			}
		}

		items := strings.Split(joined, "|")
		enc, err := AppendMultiSZ(nil, items)
		valid := !slices.ContainsFunc(items, func(s string) bool { return s == "" || strings.ContainsRune(s, 0) })
		if (err == nil) != valid {
			t.Fatalf("AppendMultiSZ(%q) error %v, want error %v", items, err, !valid)
		}
		if !valid {
			return
		}
		got, err := DecodeMultiSZ(enc)
		if err != nil {
			t.Fatalf("DecodeMultiSZ(AppendMultiSZ(%q)): %v", items, err)
		}
		want := make([]string, len(items))
		for k, s := range items {
			want[k] = string([]rune(s))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("DecodeMultiSZ(AppendMultiSZ(%q)) = %q, want %q", items, got, want)
		}
	})
}
