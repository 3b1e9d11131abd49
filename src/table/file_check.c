/* Data file vs manifest entry checks (file size, row count). */
#include "table/file_check.h"

int pm_data_file_check_size(const char *path, const pm_data_file_meta *m, uint64_t size, pm_error *err) {
  if (m->file_size <= 0 || (int64_t)size == m->file_size) return 0;
  return pm_errorf(err, PAIMON_ERR_CORRUPT,
                   "%s: data file is %lld bytes but the manifest records fileSize %lld (file replaced or truncated)",
                   path, (long long)size, (long long)m->file_size);
}

int pm_data_file_check_rows(const char *path, const pm_data_file_meta *m, int64_t rows, pm_error *err) {
  if (rows != m->row_count)
    return pm_errorf(err, PAIMON_ERR_CORRUPT,
                     "%s: data file holds %lld rows but the manifest records rowCount %lld (file replaced)", path,
                     (long long)rows, (long long)m->row_count);
  return 0;
}
