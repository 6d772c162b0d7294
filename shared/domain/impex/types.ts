/** An uploaded configuration document (the route's multipart file). */
export interface UploadedDocument {
  filename: string;
  content_type: string;
  text: string;
}
