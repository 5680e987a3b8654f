package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/awssqs"
)

// config is the -config file: the queues to create at start-up, and the
// two switches of switches.go (a flag given on the command line wins).
type config struct {
	StaleDeleteRemoves bool          `json:"staleDeleteRemoves,omitempty"`
	StrictNotInflight  bool          `json:"strictNotInflight,omitempty"`
	Queues             []queueConfig `json:"queues"`
}

// queueConfig is one queue. Attributes are SQS's, as CreateQueue takes
// them (string values). RedrivePolicy names the dead-letter queue by name
// or ARN; it is set once every queue of the file exists, so the file may
// list a queue before its dead-letter queue.
type queueConfig struct {
	Name          string            `json:"name"`
	Attributes    map[string]string `json:"attributes,omitempty"`
	RedrivePolicy *redriveConfig    `json:"redrivePolicy,omitempty"`
	Tags          map[string]string `json:"tags,omitempty"`
}

type redriveConfig struct {
	DeadLetterQueue     string `json:"deadLetterQueue,omitempty"`
	DeadLetterTargetArn string `json:"deadLetterTargetArn,omitempty"`
	MaxReceiveCount     int    `json:"maxReceiveCount"`
}

// readConfig reads the config file at path. It is read before the broker
// exists, since its switches are broker options.
func readConfig(path string) (config, error) {
	var cfg config
	data, err := os.ReadFile(path)
	if err != nil {
		return cfg, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return cfg, fmt.Errorf("config %s: %w", path, err)
	}
	return cfg, nil
}

// createQueues creates the queues of cfg, read from path, and returns how
// many it created. It goes through the awssqs adapter, so a bad attribute
// fails with the error SQS would give.
func createQueues(ctx context.Context, b *sqsq.Broker, cfg config, path string) (int, error) {
	c := awssqs.New(b)
	for _, q := range cfg.Queues {
		attrs := map[string]string{}
		for k, v := range q.Attributes {
			attrs[k] = v
		}
		if q.RedrivePolicy != nil {
			delete(attrs, "RedrivePolicy")
		}
		in := &sqs.CreateQueueInput{QueueName: &q.Name, Attributes: attrs, Tags: q.Tags}
		if _, err := c.CreateQueue(ctx, in); err != nil {
			return 0, fmt.Errorf("config %s: queue %q: %w", path, q.Name, err)
		}
	}
	for _, q := range cfg.Queues {
		r := q.RedrivePolicy
		if r == nil {
			continue
		}
		arn := r.DeadLetterTargetArn
		if arn == "" {
			dlq, err := b.GetQueue(ctx, r.DeadLetterQueue)
			if err != nil {
				return 0, fmt.Errorf("config %s: queue %q: dead-letter queue %q: %w", path, q.Name, r.DeadLetterQueue, err)
			}
			arn = dlq.ARN()
		}
		policy, _ := json.Marshal(map[string]any{"deadLetterTargetArn": arn, "maxReceiveCount": r.MaxReceiveCount})
		name := q.Name
		in := &sqs.SetQueueAttributesInput{QueueUrl: &name, Attributes: map[string]string{"RedrivePolicy": string(policy)}}
		if _, err := c.SetQueueAttributes(ctx, in); err != nil {
			return 0, fmt.Errorf("config %s: queue %q: %w", path, q.Name, err)
		}
	}
	return len(cfg.Queues), nil
}
