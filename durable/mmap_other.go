//go:build !linux

package durable

const mmapFlags = 0
