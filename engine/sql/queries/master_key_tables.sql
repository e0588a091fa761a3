-- Which tables of sealed material exist (a database not migrated yet may lack some).
SELECT to_regclass('master_key_check') IS NOT NULL AS master_key_check,
       to_regclass('key_material') IS NOT NULL AS key_material,
       to_regclass('destination_credentials') IS NOT NULL AS destination_credentials,
       to_regclass('endpoint_auth_material') IS NOT NULL AS endpoint_auth_material
