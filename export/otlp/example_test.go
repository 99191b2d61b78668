package otlp_test

import (
	"context"
	"log"
	"os/signal"
	"syscall"
	"time"

	"github.com/perfcounters/perfcounters/export/otlp"
	"github.com/perfcounters/perfcounters/host"
)

// Push the local host's core objects and its disks sd* to a collector
// every 30 s over OTLP/gRPC, until SIGTERM, as `perfc serve` does with
// -otlp-endpoint.
func Example() {
	h, err := host.New(host.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()
	disks, err := otlp.ParseSelection("PhysicalDisk(* sd*)")
	if err != nil {
		log.Fatal(err)
	}
	headers, err := otlp.ParseHeaders("api-key=s3cret")
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	e, err := otlp.New(ctx, h.Source(), otlp.Options{
		Protocol: otlp.GRPC,
		Endpoint: "https://collector.example:4317",
		Headers:  headers,
		Interval: 30 * time.Second,
		Objects: []otlp.Selection{{Object: "Processor"}, {Object: "Memory"}, disks,
			{Object: "Network Interface"}, {Object: "System"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := e.Run(ctx); err != nil {
		log.Print(err)
	}
}
