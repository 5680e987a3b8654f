package durable

import "fmt"

func runChild(role string) int {
	fmt.Println("unknown role", role)
	return 2
}
