package store

// The bucket drivers Open knows. Each registers its URL scheme with
// gocloud.dev/blob; credentials come from the cloud's usual environment
// (AWS_* variables or profiles, Google application default credentials,
// AZURE_STORAGE_* variables).
import (
	_ "gocloud.dev/blob/azureblob"
	_ "gocloud.dev/blob/gcsblob"
	_ "gocloud.dev/blob/memblob"
	_ "gocloud.dev/blob/s3blob"
)
