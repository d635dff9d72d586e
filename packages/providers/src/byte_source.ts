/** What the stream readers accept: a web stream (a fetch body) or any async iterable of bytes. */
export type ByteSource = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;
