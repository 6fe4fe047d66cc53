package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc"
)

// The 256 MiB limits of Curio's client: a 32 GiB C1 wrapper is 50-70 MB.
const maxMessageBytes = 256 << 20

// target maps an address as Curio's client does: "unix:///path" (or any "scheme://") is passed to grpc-go
// as is, "host:port" gets the "dns:///" scheme.
func target(addr string) string {
	if strings.Contains(addr, "://") || strings.HasPrefix(addr, "unix:") {
		return addr
	}
	return "dns:///" + addr
}

// dial connects with plaintext HTTP/2 and no authentication metadata, as Curio does. Curio's connection is
// lazy; this one blocks until connected (at most |limit|) so that an unreachable service is reported as such
// rather than as the first call's failure.
func dial(addr string, limit time.Duration) (*grpc.ClientConn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	conn, err := grpc.DialContext(ctx, target(addr),
		grpc.WithInsecure(), // grpc-go 1.33 has no credentials/insecure; this is the same transport
		grpc.WithBlock(),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMessageBytes), grpc.MaxCallSendMsgSize(maxMessageBytes)))
	if err == context.DeadlineExceeded {
		return nil, fmt.Errorf("nothing accepted a connection within %v%s", limit, socketState(addr))
	}
	return conn, err
}

// socketState says whether a unix socket's file exists, for the message of a failed connection.
func socketState(addr string) string {
	if !strings.HasPrefix(addr, "unix:") {
		return ""
	}
	path := strings.TrimPrefix(strings.TrimPrefix(addr, "unix:"), "//")
	if _, err := os.Stat(path); err != nil {
		return fmt.Sprintf(" (%s: %v)", path, err)
	}
	return fmt.Sprintf(" (%s exists)", path)
}
