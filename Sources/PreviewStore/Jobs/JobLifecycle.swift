/// One lifecycle for a document: its job's state is kept on its own row (`documents.job_status`) by a
/// trigger on `jobs`, so it changes in the job's transaction and a read of the document needs no
/// second query. The SQL is the same on both backends (PostgreSQL wraps the trigger's statement in a
/// function).
package enum JobLifecycle {
    /// The trigger's statement, after a job is inserted or its status changes: a preview job's state
    /// is its document's (a playback job's is shown with the renditions it makes).
    package static let jobChanged = ["UPDATE documents SET job_status = NEW.status WHERE id = NEW.document_id AND NEW.kind = 'preview'"]

    /// The statement before jobs had kinds (schema v7 to v8), kept as migration v7 wrote it.
    package static let jobChangedBeforeKinds = ["UPDATE documents SET job_status = NEW.status WHERE id = NEW.document_id"]

    /// Fills the column from the jobs that exist when it is added.
    package static let backfill = """
        UPDATE documents SET job_status = (SELECT status FROM jobs WHERE jobs.document_id = documents.id ORDER BY id DESC LIMIT 1)
        """
}
