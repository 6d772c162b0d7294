/** An uploaded file as the import route declares it. */
export interface UploadFile {
  filename: string;
  content_type: string;
  text: string;
}

/** Serializes a multipart route's body (import, export): plain fields as strings, `{filename, content_type, text}` as a file part. */
export function multipart(body: unknown): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (value === undefined || value === null) continue;
    if (typeof value === 'object' && 'text' in value && 'filename' in value) {
      const file = value as UploadFile;
      form.set(key, new Blob([file.text], { type: file.content_type }), file.filename);
    } else form.set(key, String(value));
  }
  return form;
}
