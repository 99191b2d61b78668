package prom

import "strconv"

// Alert is the state of one threshold of an alert Data Collector Set for
// one counter instance, as the collector service last judged it
// (Options.Alerts).
type Alert struct {
	Set       string // the alert set's name
	Threshold string // as written: PATH>VALUE
	Counter   string // the instance's concrete path
	Firing    bool
	Fired     uint64 // firings since the set started
}

// The alert families, after the prefix.
const (
	alertFiring = "alert_firing"
	alertFired  = "alert_fired"
)

// writeAlerts appends the alert families: PREFIX_alert_firing (a gauge,
// 1 while an alert fires) and PREFIX_alert_fired_total (a counter of
// firings since its set started), labelled set, threshold and counter.
func (col *Collector) writeAlerts(w []byte, f Format, alerts []Alert) []byte {
	if len(alerts) == 0 {
		return w
	}
	p := col.c.prefix
	firing := headers(p+alertFiring, p+alertFiring, kindGauge,
		"Whether a threshold of a perfc alert Data Collector Set fires now (1) or not (0), per counter instance it judges.")
	w = append(w, firing[f]...)
	for _, a := range alerts {
		w = appendAlertSample(w, p+alertFiring, a)
		if a.Firing {
			w = append(w, " 1\n"...)
		} else {
			w = append(w, " 0\n"...)
		}
	}
	fired := headers(p+alertFired, p+alertFired+"_total", kindCounter,
		"Firings of a threshold of a perfc alert Data Collector Set since the set started, per counter instance it judges.")
	w = append(w, fired[f]...)
	for _, a := range alerts {
		w = appendAlertSample(w, p+alertFired+"_total", a)
		w = append(w, ' ')
		w = strconv.AppendUint(w, a.Fired, 10)
		w = append(w, '\n')
	}
	return w
}

func appendAlertSample(w []byte, name string, a Alert) []byte {
	w = append(w, name...)
	w = append(w, `{set="`...)
	w = appendLabelValue(w, a.Set)
	w = append(w, `",threshold="`...)
	w = appendLabelValue(w, a.Threshold)
	w = append(w, `",counter="`...)
	w = appendLabelValue(w, a.Counter)
	return append(w, `"}`...)
}
