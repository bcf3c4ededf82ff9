/** Purposes a client may upload with (DESIGN §5); `batch_output` is written by igw only. */
export const UPLOAD_PURPOSES = ['batch', 'assistants', 'user_data'] as const;
export type UploadPurpose = (typeof UPLOAD_PURPOSES)[number];
export type FilePurpose = UploadPurpose | 'batch_output';

/** Metadata of one stored file; the bytes live sealed under `<dataDir>/files/<id>`. */
export interface FileRecord {
  id: string;
  /** Owning account: another account's file is "not found". */
  account: string;
  filename: string;
  purpose: FilePurpose;
  /** Plaintext size. */
  bytes: number;
  /** Unix seconds. */
  created_at: number;
}

/** The OpenAI file object (DESIGN §5). */
export interface FileObject {
  id: string;
  object: 'file';
  bytes: number;
  created_at: number;
  filename: string;
  purpose: FilePurpose;
  status: 'processed';
  status_details: null;
  expires_at: null;
}

export function fileObject(record: FileRecord): FileObject {
  return {
    id: record.id,
    object: 'file',
    bytes: record.bytes,
    created_at: record.created_at,
    filename: record.filename,
    purpose: record.purpose,
    status: 'processed',
    status_details: null,
    expires_at: null,
  };
}

export function isUploadPurpose(value: string): value is UploadPurpose {
  return (UPLOAD_PURPOSES as readonly string[]).includes(value);
}
