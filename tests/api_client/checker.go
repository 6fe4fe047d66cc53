package main

import (
	"fmt"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// checker prints each check's outcome and counts them.
type checker struct {
	passed, failed int
}

func (c *checker) ok(name string) {
	c.passed++
	fmt.Printf("ok: %s\n", name)
}

func (c *checker) fail(name, format string, args ...interface{}) {
	c.failed++
	fmt.Printf("FAIL: %s: %s\n", name, fmt.Sprintf(format, args...))
}

// expect passes |name| when |cond| holds, else fails it with the reason; it returns |cond|.
func (c *checker) expect(name string, cond bool, format string, args ...interface{}) bool {
	if cond {
		c.ok(name)
	} else {
		c.fail(name, format, args...)
	}
	return cond
}

// expectCode passes |name| when |err| is a gRPC status with |code| whose message contains |field|
// (any message when |field| is empty).
func (c *checker) expectCode(name string, err error, code codes.Code, field string) bool {
	if err == nil {
		c.fail(name, "succeeded; expected %v", code)
		return false
	}
	st := status.Convert(err)
	fmt.Printf("  reply: %v %q\n", st.Code(), st.Message())
	if st.Code() != code {
		c.fail(name, "got %v (%q); expected %v", st.Code(), st.Message(), code)
		return false
	}
	if field != "" && !strings.Contains(st.Message(), field) {
		c.fail(name, "%v message %q does not name %q", code, st.Message(), field)
		return false
	}
	c.ok(name)
	return true
}
