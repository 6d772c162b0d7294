import busboy from 'busboy';
import { unprocessable } from '#shared/errors';

/** An uploaded file as a route's schema sees it: its name, type and text (documents are text). */
export interface UploadedFile {
  filename: string;
  content_type: string;
  text: string;
}

const refuse = (loc: (string | number)[], msg: string, type: string) => unprocessable([{ loc, msg, type }]);

/**
 * A multipart/form-data body → its fields (text) and files (by field name), with busboy. The body
 * is the bytes API Gateway delivered. Anything but multipart/form-data, a file over `maxFileBytes`,
 * or a body busboy cannot read is a 422 naming the body or the field.
 */
export function parseMultipart(
  contentType: string | undefined,
  body: Buffer,
  opts: { maxFileBytes: number; maxFields?: number },
): Promise<Record<string, string | UploadedFile>> {
  if (!contentType?.toLowerCase().startsWith('multipart/form-data')) {
    return Promise.reject(refuse(['body'], 'Expected a multipart/form-data body', 'content_type'));
  }
  return new Promise((resolve, reject) => {
    const out: Record<string, string | UploadedFile> = {};
    let failed: Error | undefined;
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': contentType },
        limits: { fileSize: opts.maxFileBytes, files: 1, fields: opts.maxFields ?? 20, fieldSize: 64 * 1024 },
      });
    } catch {
      return reject(refuse(['body'], 'Malformed multipart/form-data body (boundary)', 'multipart'));
    }
    parser.on('field', (name, value) => {
      out[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () => {
        failed ??= refuse(['body', name], `File too large (at most ${opts.maxFileBytes} bytes)`, 'file_too_large');
      });
      stream.on('close', () => {
        out[name] = {
          filename: info.filename ?? '',
          content_type: info.mimeType,
          text: Buffer.concat(chunks).toString('utf8'),
        };
      });
    });
    parser.on('error', () => reject(failed ?? refuse(['body'], 'Malformed multipart/form-data body', 'multipart')));
    parser.on('close', () => (failed ? reject(failed) : resolve(out)));
    parser.end(body);
  });
}
