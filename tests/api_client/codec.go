package main

import (
	"fmt"

	"google.golang.org/grpc/encoding"
	"google.golang.org/protobuf/proto"
)

// protoCodec encodes messages with google.golang.org/protobuf, as grpc-go's own "proto" codec does from
// v1.35 (Curio's grpc-go). Debian 12 pairs grpc-go 1.33, whose codec goes through github.com/golang/protobuf
// 1.3, with protoc-gen-go 1.28, whose messages that version cannot decode ("protobuf tag not enough fields").
// The bytes on the wire are the same protobuf encoding either way.
type protoCodec struct{}

func (protoCodec) Marshal(v interface{}) ([]byte, error) {
	m, ok := v.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("proto codec: %T is not a protobuf message", v)
	}
	return proto.Marshal(m)
}

func (protoCodec) Unmarshal(data []byte, v interface{}) error {
	m, ok := v.(proto.Message)
	if !ok {
		return fmt.Errorf("proto codec: %T is not a protobuf message", v)
	}
	return proto.Unmarshal(data, m)
}

// Name replaces the codec grpc-go registers under "proto" (the content-subtype of every call).
func (protoCodec) Name() string { return "proto" }

func init() { encoding.RegisterCodec(protoCodec{}) }
