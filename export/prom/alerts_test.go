package prom

import (
	"context"
	"strings"
	"testing"
)

// TestAlertSeries: the alert families in both formats, with label values
// escaped as the exposition formats ask.
func TestAlertSeries(t *testing.T) {
	col, err := NewCollector(windowsSource(t), Options{Objects: []string{"Memory"}, Alerts: func(context.Context) []Alert {
		return []Alert{
			{Set: "cpu", Threshold: `\Processor(_Total)\% Processor Time>90`, Counter: `\Processor(_Total)\% Processor Time`, Firing: true, Fired: 3},
			{Set: `q"x`, Threshold: `\Memory\Available Bytes<1`, Counter: `\Memory\Available Bytes`},
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[Format]string{
		Text: `# HELP perfc_alert_firing Whether a threshold of a perfc alert Data Collector Set fires now (1) or not (0), per counter instance it judges.
# TYPE perfc_alert_firing gauge
perfc_alert_firing{set="cpu",threshold="\\Processor(_Total)\\% Processor Time>90",counter="\\Processor(_Total)\\% Processor Time"} 1
perfc_alert_firing{set="q\"x",threshold="\\Memory\\Available Bytes<1",counter="\\Memory\\Available Bytes"} 0
# HELP perfc_alert_fired_total Firings of a threshold of a perfc alert Data Collector Set since the set started, per counter instance it judges.
# TYPE perfc_alert_fired_total counter
perfc_alert_fired_total{set="cpu",threshold="\\Processor(_Total)\\% Processor Time>90",counter="\\Processor(_Total)\\% Processor Time"} 3
perfc_alert_fired_total{set="q\"x",threshold="\\Memory\\Available Bytes<1",counter="\\Memory\\Available Bytes"} 0
`,
		OpenMetrics: `# TYPE perfc_alert_firing gauge
# HELP perfc_alert_firing Whether a threshold of a perfc alert Data Collector Set fires now (1) or not (0), per counter instance it judges.
perfc_alert_firing{set="cpu",threshold="\\Processor(_Total)\\% Processor Time>90",counter="\\Processor(_Total)\\% Processor Time"} 1
perfc_alert_firing{set="q\"x",threshold="\\Memory\\Available Bytes<1",counter="\\Memory\\Available Bytes"} 0
# TYPE perfc_alert_fired counter
# HELP perfc_alert_fired Firings of a threshold of a perfc alert Data Collector Set since the set started, per counter instance it judges.
perfc_alert_fired_total{set="cpu",threshold="\\Processor(_Total)\\% Processor Time>90",counter="\\Processor(_Total)\\% Processor Time"} 3
perfc_alert_fired_total{set="q\"x",threshold="\\Memory\\Available Bytes<1",counter="\\Memory\\Available Bytes"} 0
# EOF
`,
	}
	for f, w := range want {
		b, err := col.Scrape(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		if f == Text {
			promtoolCheck(t, string(b))
		} else {
			checkOpenMetrics(t, string(b))
		}
		i := strings.Index(string(b), "# HELP perfc_alert_firing")
		if f == OpenMetrics {
			i = strings.Index(string(b), "# TYPE perfc_alert_firing")
		}
		if i < 0 || string(b[i:]) != w {
			t.Errorf("format %d: alert series\n%s\nwant\n%s", f, b[max(i, 0):], w)
		}
	}
}
