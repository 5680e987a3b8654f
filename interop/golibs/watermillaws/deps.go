//go:build deps

// Never built (see doc.go): it only puts watermill-aws's sqs package, whose
// tests run.sh runs, in this module's dependency graph.

package watermillaws

import _ "github.com/ThreeDotsLabs/watermill-aws/sqs"
