package prom

import (
	"context"
	"testing"
)

// BenchmarkScrapeLinux is the writing part of a scrape (the source hands
// out a sample it already holds): the Linux fixture's five objects.
func BenchmarkScrapeLinux(b *testing.B) {
	src := linuxSource(b)
	col, err := NewCollector(src, Options{Objects: linuxObjects})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		body, err := col.Scrape(context.Background(), OpenMetrics)
		if err != nil {
			b.Fatal(err)
		}
		n = len(body)
	}
	b.ReportMetric(float64(n), "body-bytes")
}

// BenchmarkScrapeWindows is the same over the real Windows samples,
// Process (about 50 processes) included, with formatted gauges.
func BenchmarkScrapeWindows(b *testing.B) {
	src := windowsSource(b)
	col, err := NewCollector(src, Options{Objects: windowsObjects, Formatted: true})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := col.Scrape(context.Background(), OpenMetrics); err != nil {
			b.Fatal(err)
		}
	}
}
