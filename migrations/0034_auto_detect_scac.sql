-- auto_detect_vocc_scac (issue 13): a tracking request may be created without a SCAC; the engine
-- infers it before its first carrier call (src/engine/detect-scac.ts), or fails the request with
-- scac_auto_detect_failed. Until then scac is null.
alter table tracking_requests alter column scac drop not null;
