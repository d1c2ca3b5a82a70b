import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventIdOf, normalizeLocode, parseDcsaEvent } from '../../src/carriers/dcsa/parse.ts';

describe('parseDcsaEvent', () => {
  it('parses a 2.2 equipment event, preferring eventLocation and reading seals and references', () => {
    const p = parseDcsaEvent({
      eventID: 'e1',
      eventType: 'EQUIPMENT',
      eventClassifierCode: 'ACT',
      eventDateTime: '2024-05-01T10:00:00+08:00',
      eventCreatedDateTime: '2024-05-01T10:01:00+08:00',
      equipmentEventTypeCode: 'GTIN',
      emptyIndicatorCode: 'LADEN',
      ISOEquipmentCode: '22gp',
      references: [{ referenceType: 'EQ', referenceValue: 'MSKU 700001-3' }],
      eventLocation: { UNLocationCode: 'CNYTN', facilityCode: 'YICT', facilityCodeListProvider: 'SMDG' },
      seals: [{ sealNumber: 'S1', sealType: 'BLT' }],
      documentReferences: [{ documentReferenceType: 'TRD', documentReferenceValue: 'BL1' }, { bogus: true }],
    });
    assert.ok(p && p.eventType === 'EQUIPMENT');
    assert.equal(p.equipmentReference, 'MSKU7000013');
    assert.equal(p.isoEquipmentCode, '22GP');
    assert.equal(p.sealNumber, 'S1');
    assert.deepEqual(p.eventLocation, {
      locode: 'CNYTN',
      facilityCode: 'YICT',
      facilityProvider: 'SMDG',
      facilityTypeCode: null,
    });
    assert.deepEqual(p.documentReferences, [{ type: 'TRD', value: 'BL1' }]);
  });

  it('reads transportCall.location (2.3 style) before the deprecated flat fields, and carrierVoyageNumber', () => {
    const p = parseDcsaEvent({
      eventId: 'msc-1',
      eventTypeCode: 'ARRI',
      eventClassifierCode: 'EST',
      eventDateTime: '2024-05-01T10:00:00',
      transportCall: {
        transportCallID: 77,
        modeOfTransport: 'vessel',
        carrierVoyageNumber: 'FE1',
        UNLocationCode: 'NLRTM',
        facilityTypeCode: 'POTE',
        transportCallSequenceNumber: '2',
        location: { UNLocationCode: 'nl rtm', facilityCode: 'EMX' },
        vessel: { vesselIMONumber: 'IMO 9501368', vesselName: ' Rotterdam Express ' },
      },
    });
    assert.ok(p && p.eventType === 'TRANSPORT');
    assert.equal(p.eventId, 'msc-1');
    assert.equal(p.code, 'ARRI');
    assert.equal(p.classifier, 'EST');
    assert.deepEqual(p.transportCall, {
      transportCallId: '77',
      mode: 'VESSEL',
      serviceCode: null,
      exportVoyage: 'FE1',
      importVoyage: null,
      sequence: 2,
      vesselImo: '9501368',
      vesselName: 'Rotterdam Express',
      locode: 'NLRTM',
      facilityCode: 'EMX',
      facilityProvider: null,
      facilityTypeCode: 'POTE',
    });
  });

  it('tolerates unknown codes and returns null only for unusable values', () => {
    const avpu = parseDcsaEvent({
      eventType: 'EQUIPMENT',
      eventClassifierCode: 'ACT',
      equipmentEventTypeCode: 'AVPU',
      emptyIndicatorCode: 'FULL',
    });
    assert.ok(avpu && avpu.eventType === 'EQUIPMENT');
    assert.equal(avpu.code, 'AVPU');
    assert.equal(avpu.emptyIndicator, null);
    assert.equal(avpu.eventLocation, null);
    const canc = parseDcsaEvent({
      eventType: 'SHIPMENT',
      shipmentEventTypeCode: 'CANC',
      documentTypeCode: 'BKG',
      documentID: 'B1',
    });
    assert.ok(canc && canc.eventType === 'SHIPMENT');
    assert.equal(canc.classifier, 'ACT');
    for (const junk of [
      null,
      undefined,
      7,
      'x',
      [],
      {},
      { eventType: 'EQUIPMENT', eventClassifierCode: 'ACT' },
      { eventType: 'TRANSPORT', transportEventTypeCode: 'ARRI' },
      { eventType: 'IOT', eventClassifierCode: 'ACT' },
    ]) {
      assert.equal(parseDcsaEvent(junk), null, JSON.stringify(junk));
    }
  });

  it('survives hostile objects', () => {
    const hostile = Object.defineProperty({ eventType: 'TRANSPORT' }, 'eventClassifierCode', {
      enumerable: true,
      get() {
        throw new Error('boom');
      },
    });
    assert.equal(parseDcsaEvent(hostile), null);
    assert.equal(
      parseDcsaEvent({
        eventType: 'TRANSPORT',
        eventClassifierCode: 'ACT',
        transportEventTypeCode: 'ARRI',
        transportCall: { UNLocationCode: 'x'.repeat(1e6) },
      })?.eventType,
      'TRANSPORT',
    );
  });

  it('helpers', () => {
    assert.equal(eventIdOf({ eventID: 'a', eventId: 'b' }), 'a');
    assert.equal(eventIdOf({ eventId: 'b' }), 'b');
    assert.equal(eventIdOf(null), null);
    assert.equal(normalizeLocode(' us lax '), 'USLAX');
    assert.equal(normalizeLocode('USLA1'), null);
  });
});
