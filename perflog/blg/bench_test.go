package blg

import "testing"

// BenchmarkOpen opens each Windows BLG of testdata.
func BenchmarkOpen(b *testing.B) {
	for _, name := range []string{"CounterSamples", "SampleLog", "BadCounterSamples"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				l, err := Open("testdata/" + name + ".blg")
				if err != nil {
					b.Fatal(err)
				}
				l.Close()
			}
		})
	}
}

// BenchmarkDecode decodes every sample of an open BLG again, its cache
// of decoded samples emptied each time.
func BenchmarkDecode(b *testing.B) {
	for _, name := range []string{"CounterSamples", "SampleLog", "BadCounterSamples"} {
		b.Run(name, func(b *testing.B) {
			l, err := Open("testdata/" + name + ".blg")
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			for b.Loop() {
				l.decoded, l.decodedSize = nil, 0
				l.Seek(0)
				for {
					if _, err := l.Sample(b.Context(), nil); err != nil {
						break
					}
				}
			}
		})
	}
}
