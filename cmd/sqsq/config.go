package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/sqsq/sqsq"
)

// config is the -config file: the queues to create at start-up, and the
// two switches of switches.go (a flag given on the command line wins).
type config struct {
	StaleDeleteRemoves bool          `json:"staleDeleteRemoves,omitempty"`
	StrictNotInflight  bool          `json:"strictNotInflight,omitempty"`
	Queues             []queueConfig `json:"queues"`

	src *source // the file's text, to say where an error is; nil for a config not read from a file
}

// queueConfig is one queue. Attributes are SQS's, as CreateQueue takes
// them (string values). A dead-letter queue is given either by the
// RedrivePolicy key (by name or ARN) or by the RedrivePolicy attribute
// (SQS's JSON string); either is set once every queue of the file exists,
// so the file may list a queue before its dead-letter queue.
//
// Account and Region place the queue in another namespace than the
// server's defaults (-account-id, -region): a 12-digit account id and an
// AWS region's name, the namespaces clients reach (see the package doc of
// sqshttp). A name is unique within its namespace; deadLetterQueue names a
// queue of the file in the same namespace (another namespace's is given by
// deadLetterTargetArn).
type queueConfig struct {
	Name          string            `json:"name"`
	Account       string            `json:"account,omitempty"`
	Region        string            `json:"region,omitempty"`
	Attributes    map[string]string `json:"attributes,omitempty"`
	RedrivePolicy *redriveConfig    `json:"redrivePolicy,omitempty"`
	Tags          map[string]string `json:"tags,omitempty"`
}

type redriveConfig struct {
	DeadLetterQueue     string `json:"deadLetterQueue,omitempty"`
	DeadLetterTargetArn string `json:"deadLetterTargetArn,omitempty"`
	MaxReceiveCount     *int   `json:"maxReceiveCount"` // nil: missing, which SQS refuses
}

// readConfig reads the config file at path. It is read before the broker
// exists, since its switches are broker options. Its errors say where in
// the file the problem is (file:line:column).
func readConfig(path string) (config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return config{}, fmt.Errorf("config file: %w", err) // the os error names the path
	}
	cfg := config{src: &source{file: path, data: data}}
	if err := cfg.src.decode(&cfg); err != nil {
		return config{}, err
	}
	return cfg, nil
}

// createQueues creates the queues of cfg, read from path, and returns how
// many it created. It checks what the file alone can tell (names, each
// attribute, the redrive policies) before it creates any queue, then
// creates the queues through the core, so a bad value fails with the error
// SQS would give, quoted in the words of the file. Redrive policies are set
// last, when every queue of the file exists: the order of the file never
// matters. (A RedriveAllowPolicy is set at creation: it names its sources
// by ARN, which need not exist, and no redrive policy is checked against
// it before every queue exists.)
//
// With keep, a queue that exists already (restored from -data) is left as
// it is: its attributes may have changed since, and the stored state wins.
func createQueues(ctx context.Context, b *sqsq.Broker, cfg config, path string, keep bool) (int, error) {
	if cfg.src == nil {
		cfg.src = &source{file: path}
	}
	plans, err := cfg.check(b.AccountID(), b.Region())
	if err != nil {
		return 0, err
	}
	created := make(map[queueKey]*sqsq.Queue, len(plans))
	kept := map[queueKey]bool{}
	for i, p := range plans {
		scope := b.Scope(p.key.account, p.key.region)
		if keep {
			if q, err := scope.GetQueue(ctx, p.key.name); err == nil {
				created[p.key], kept[p.key] = q, true
				continue
			}
		}
		q, err := scope.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: p.key.name, Attributes: p.attrs, Tags: cfg.Queues[i].Tags})
		if err != nil {
			return 0, cfg.createError(i, err)
		}
		created[p.key] = q
	}
	for _, p := range plans {
		attrs := p.redrive
		if p.dlq != "" {
			dlq := queueKey{p.key.account, p.key.region, p.dlq}
			policy := &sqsq.RedrivePolicy{DeadLetterTargetArn: created[dlq].ARN(), MaxReceiveCount: p.maxReceives}
			attrs = &sqsq.QueueAttributes{RedrivePolicy: sqsq.Some(policy)}
		}
		if attrs == nil || kept[p.key] {
			continue
		}
		if err := created[p.key].SetAttributes(ctx, *attrs); err != nil {
			return 0, cfg.errorf(p.redriveAt, false, err, "")
		}
	}
	return len(plans), nil
}

// createError is an error of CreateQueue for queues[i], placed on the
// field it is about. The core's error names no field, so its code and
// text tell: tag errors name the parameter TagKey or TagValue, other
// InvalidParameterValue errors are about the name, attribute errors name
// the attribute.
func (c *config) createError(i int, err error) error {
	at := fmt.Sprintf("queues[%d]", i)
	var e *sqsq.Error
	if !errors.As(err, &e) {
		return c.errorf(at, false, err, "")
	}
	switch {
	case strings.Contains(e.Message, "parameter TagKey") || strings.Contains(e.Message, "parameter TagValue"):
		at += ".tags"
	case e.Code == sqsq.CodeInvalidParameterValue:
		at += ".name"
	case e.Code == sqsq.CodeInvalidAttributeName || e.Code == sqsq.CodeInvalidAttributeValue:
		at += ".attributes"
		first := len(e.Message)
		for k := range c.Queues[i].Attributes {
			if n := strings.Index(e.Message, k); n >= 0 && n < first {
				first, at = n, fmt.Sprintf("queues[%d].attributes.%s", i, k)
			}
		}
	}
	return c.errorf(at, false, err, "")
}

// errorf is an error about the value at path (queues[2].attributes.Policy),
// placed where the file has it (its key if key), or else its nearest
// enclosing value. err, SQS's error when there is one, follows the message.
func (c *config) errorf(path string, key bool, err error, format string, args ...any) error {
	e := c.src.errorAt(c, path, c.src.offset(path, key))
	if format != "" {
		e.msg = fmt.Sprintf(format, args...)
	}
	if !errors.As(err, &e.sqs) && err != nil {
		e.msg = strings.TrimPrefix(e.msg+": "+err.Error(), ": ")
	}
	return e
}
