package calc

import ct "github.com/perfcounters/perfcounters/countertype"

// Stats is the result of Statistics (PDH_STATISTICS): minimum, maximum and
// mean of the formatted values, how many values took part, and a status.
type Stats struct {
	Min, Max, Mean float64
	Count          int
	Status         Status
}

// Statistics summarises a run of raw samples of one counter the way
// PdhComputeCounterStatistics does. The values are those of Format with the
// same scale and options (a FmtLong or FmtLarge request without FmtDouble
// truncates each value and the mean as Format would).
//
// Single-sample types: every sample is formatted alone; Min/Max/Mean are
// over the samples with a value (arithmetic mean, W2003's SUM(N/D)/x).
//
// Two-sample types: every consecutive pair is formatted; Min/Max are over
// the pairs with a value. Mean follows W2003's "Average over x samples":
// the first and the last sample formatted as one pair ((Nx − N0)/(Dx − D0)),
// which is the time-weighted mean of the pairs and therefore lies between
// Min and Max. When some pair had no value (a reset, an idle interval), the
// first-to-last span would mix invalid intervals in, so Mean falls back to
// the arithmetic mean of the pairs that had a value.
//
// Count is the number of values that took part. Status is ValidData when
// Count > 0; otherwise NoData for no samples, NewData for a single sample
// of a two-sample type, or else the status of the last value that failed.
func Statistics(t ct.Type, scale int32, samples []Raw, opts Options) Stats {
	if !t.Known() {
		return Stats{Status: InvalidData}
	}
	if len(samples) == 0 {
		return Stats{Status: NoData}
	}
	var s Stats
	var sum float64
	last := ValidData
	add := func(v Value) {
		if !v.HasValue() {
			last = v.Status
			return
		}
		x := scalar(v, opts)
		if s.Count == 0 || x < s.Min {
			s.Min = x
		}
		if s.Count == 0 || x > s.Max {
			s.Max = x
		}
		s.Count++
		sum += x
	}
	two := t.NeedsTwoSamples()
	if !two {
		for i := range samples {
			add(Format(t, scale, &samples[i], nil, opts))
		}
	} else {
		if len(samples) == 1 {
			return Stats{Status: NewData}
		}
		for i := 1; i < len(samples); i++ {
			add(Format(t, scale, &samples[i], &samples[i-1], opts))
		}
	}
	if s.Count == 0 {
		return Stats{Status: last}
	}
	s.Status = ValidData
	span := false
	if two && s.Count == len(samples)-1 {
		if v := Format(t, scale, &samples[len(samples)-1], &samples[0], opts); v.HasValue() {
			s.Mean, span = scalar(v, opts), true
		}
	}
	if !span {
		s.Mean = scalar(project(sum/float64(s.Count), opts), opts)
	}
	// Rounding (and integer truncation of the arithmetic mean) can put the
	// mean an ulp outside the values it summarises; keep it inside.
	s.Mean = min(max(s.Mean, s.Min), s.Max)
	return s
}

// scalar reads the number the options asked for back as a float64.
func scalar(v Value, opts Options) float64 {
	switch {
	case opts&FmtDouble != 0 || opts&(FmtLong|FmtLarge) == 0:
		return v.Double
	case opts&FmtLarge != 0:
		return float64(v.Large)
	}
	return float64(v.Long)
}
