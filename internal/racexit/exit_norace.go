//go:build !race

package racexit

import "os"

func exit(code int) { os.Exit(code) }
